#define _GNU_SOURCE
#include "CLinux.h"
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/prctl.h>

/* The Swift concurrency runtime's hook for the global executor (swift/Runtime/ConcurrencyHooks.def): it receives
   each job, and the runtime's own implementation as its last argument. Jobs are opaque here. */
typedef struct clinux_job clinux_job;
typedef __attribute__((swiftcall)) void (*enqueue_original)(clinux_job *job);
extern __attribute__((swiftcall)) void (*swift_task_enqueueGlobal_hook)(clinux_job *job, enqueue_original original);
/* swift_job_run(Job *, SerialExecutorRef): the executor reference is two words; {0, 0} is the generic executor. */
extern __attribute__((swiftcall)) void swift_job_run(clinux_job *job, void *identity, uintptr_t implementation);

struct entry {
    clinux_job *job;
    struct entry *next;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static struct entry *head, *tail;

static __attribute__((swiftcall)) void enqueue(clinux_job *job, enqueue_original original) {
    (void)original;
    struct entry *entry = malloc(sizeof *entry);
    if (entry == NULL) abort();
    entry->job = job;
    entry->next = NULL;
    pthread_mutex_lock(&lock);
    if (tail) tail->next = entry; else head = entry;
    tail = entry;
    pthread_cond_signal(&wake);
    pthread_mutex_unlock(&lock);
}

static void *run_jobs(void *unused) {
    (void)unused;
    prctl(PR_SET_NAME, "async", 0, 0, 0);
    for (;;) {
        pthread_mutex_lock(&lock);
        while (head == NULL) pthread_cond_wait(&wake, &lock);
        struct entry *entry = head;
        head = entry->next;
        if (head == NULL) tail = NULL;
        pthread_mutex_unlock(&lock);
        clinux_job *job = entry->job;
        free(entry);
        swift_job_run(job, NULL, 0);
    }
    return NULL;
}

int clinux_install_single_thread_executor(void) {
    pthread_t thread;
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    int error = pthread_create(&thread, &attributes, run_jobs, NULL);
    pthread_attr_destroy(&attributes);
    if (error != 0) return error;
    swift_task_enqueueGlobal_hook = enqueue;
    return 0;
}
