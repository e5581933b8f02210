/* A program whose main thread exits after 0.3 s (or argv[1] microseconds) while another thread runs on, as
   `pthread_exit` in `main` makes it (also from a library preloaded into any program): its /proc/PID/exe and cmdline
   then read as nothing, and the main thread's state is Z. Built by the tests with `gcc -pthread`. */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

static void *play(void *unused) {
    for (;;) pause();
    return unused;
}

int main(int argc, char **argv) {
    pthread_t thread;
    if (pthread_create(&thread, 0, play, 0) != 0) return 1;
    usleep(argc > 1 ? atoi(argv[1]) : 300000);
    pthread_exit(0);
}
