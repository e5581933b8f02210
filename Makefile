# Screen Time for Linux: the usual targets. `make run` and `make test` install what is missing first (as root).
SWIFT ?= swift
PREFIX ?= /usr/local
export PATH := $(PATH):/opt/swift/usr/bin

.PHONY: all deps deb-deps test-deps build run test unit-test integration-test bench install install-user deb clean

all: build

deps:
	@scripts/install-deps.sh build

test-deps:
	@scripts/install-deps.sh test

build: deps
	$(SWIFT) build

## Build and show live what is in front of each session and how long each app has been used.
run: build
	.build/debug/screentime now --watch

## Every test: unit tests, then the integration tests against real logind, X11, sway, cgroups and D-Bus.
test: test-deps
	$(SWIFT) build --build-tests
	cd Examples && $(SWIFT) build
	scripts/run-tests.sh

bench: test-deps
	scripts/run-benchmarks.sh

install: deps
	scripts/build-release.sh
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 .build/release/screentime .build/release/screentimed $(DESTDIR)$(PREFIX)/bin/

## For the calling user: binaries in ~/.local/bin, the user unit enabled and started, D-Bus activation of its API.
install-user: deps
	scripts/build-release.sh
	install -d $(HOME)/.local/bin $(HOME)/.config/systemd/user
	install -m 0755 .build/release/screentime .build/release/screentimed $(HOME)/.local/bin/
	install -m 0644 systemd/screentimed.service $(HOME)/.config/systemd/user/screentimed.service
	install -d $(HOME)/.local/share/dbus-1/services
	install -m 0644 systemd/org.screentime.ScreenTime1.service $(HOME)/.local/share/dbus-1/services/
	systemctl --user daemon-reload
	systemctl --user enable --now screentimed.service

## The Debian package, dist/screentime_VERSION_ARCH.deb (dpkg-buildpackage from packaging/debian, checked by lintian).
deb: deb-deps
	scripts/build-deb.sh

deb-deps:
	@scripts/install-deps.sh deb

clean:
	rm -rf .build dist
