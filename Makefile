# The README's two commands run `make demo` and `make check`; CI runs `make check` through .ci/run.

SWIFT_FLAGS = -Xswiftc -warnings-as-errors
PYTHON ?= python3

.PHONY: build release check test-standin test-swift demo clean

build:
	swift build $(SWIFT_FLAGS)

release:
	swift build -c release $(SWIFT_FLAGS)

# Every test: the stand-in's own suite, then all Swift tests inside a private desktop session
# (session bus, Secret Service, Xvfb and dunst), which scripts/desktop-session starts and stops.
check: test-standin test-swift

test-standin:
	$(PYTHON) -m unittest discover -s Tests/Standin

test-swift:
	swift build --build-tests $(SWIFT_FLAGS)
	scripts/desktop-session swift test --skip-build

# A gitbay stand-in on loopback with a demo user and activity, for trying gbnotify without an account.
demo: build
	@echo "demo: gbnotifyctl and gbnotifyd are in $(CURDIR)/.build/debug"
	$(PYTHON) Tests/Standin/gitbay_standin.py --port 8417 --demo

clean:
	swift package clean
