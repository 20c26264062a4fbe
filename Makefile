# Every target is phony: none of them names a file.
.PHONY: build test e2e lint run bench fuzz golden tidy seed load webhook-interop

VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
DATA_DIR ?= ./data
# make run's administrator password: a fixed value so the README's curl examples work on a fresh
# clone. It only applies to a data directory with no users yet, and the service listens on loopback.
DEV_APP_PASSWORD ?= DevPassword0000000000000
FUZZTIME ?= 30s
# How much make test fuzzes each target: enough to replay its corpus and try some inputs. A count, not
# a duration: with a duration, Go 1.26's fuzzing coordinator can fail a target that found nothing with a
# bare "context deadline exceeded" as the time runs out (golang/go#75804, fixed in Go 1.27), which a
# loaded CI machine hits; a count has no deadline to race. 500 runs take 0.1 s to 3 s a target.
TEST_FUZZTIME ?= 500x
# Every fuzz target as dir:Name, read from the test sources (go test -list would link every package's
# test binary just to list them).
FUZZ_TARGETS := $(shell grep -rEo --include='*_test.go' '^func Fuzz[A-Za-z0-9_]+' . | sed -E 's|/[^/]*_test\.go:func |:|' | sort)
# make seed's number of generated events; make load's flags (see go run ./cmd/loadgen -h).
EVENTS ?= 20000
LOADFLAGS ?=

# A static binary (no cgo: it runs on any Linux, in a scratch or distroless image) without the
# build machine's paths.
build:
	CGO_ENABLED=0 go build -trimpath -ldflags "-X main.version=$(VERSION)" -o bin/calendard ./cmd/calendard

# etcd 3.6 for a local cluster (docs/CLUSTER.md), built from the Go module proxy: its server module cannot
# be go installed (its replace directives), so cmd/etcd is a module of its own around etcdmain.Main.
etcd:
	cd cmd/etcd && go build -o ../../bin/etcd .

# Every benchmark also runs once, so that a benchmark that no longer works is found here, not when
# someone needs its figures; and every fuzz target runs briefly (go test alone only replays the seeds).
test:
	go test -race -count=1 ./...
	# The end-to-end tests again in cluster mode, on an embedded etcd member: both backends answer
	# alike. Without -race: the race detector has seen these paths in the run above and in the
	# cluster tests, and with it this run alone took 4.5-10 minutes on 2 cores.
	go test -count=1 ./cmd/calendard -args -backend=etcd
	go test -run='^$$' -bench=. -benchtime=1x ./...
	@$(MAKE) --no-print-directory fuzz FUZZTIME=$(TEST_FUZZTIME)

# The explorer page (/explore/) in a real browser: headless Chromium, which make test does not need.
E2E_BROWSERS := chromium chromium-browser google-chrome google-chrome-stable headless-shell
e2e:
	@for b in $(E2E_BROWSERS); do command -v $$b >/dev/null && exit 0; done; \
		echo "make e2e needs Chromium (none of: $(E2E_BROWSERS)); install it: apt-get update && apt-get install -y chromium"; exit 1
	go test -race -tags e2e -count=1 -run '^TestE2E' ./cmd/calendard

# The webhooks' signatures checked by an independent implementation, the npm standardwebhooks library
# under Node.js (README "Webhooks"), which make test does not need: npm ci installs the locked version.
webhook-interop:
	@command -v node >/dev/null && command -v npm >/dev/null || { echo "make webhook-interop needs Node.js and npm"; exit 1; }
	cd jobs/webhook/interop && npm ci --no-audit --no-fund
	go test -tags interop -count=1 -run TestNodeVerifiesDeliveries ./jobs/webhook

# The e2e tests and the webhook interop test are vetted too, though only make e2e and make
# webhook-interop build them.
lint:
	@test -z "$$(gofmt -l .)" || { gofmt -l .; echo "gofmt: the files above need formatting"; exit 1; }
	go vet ./...
	go vet -tags e2e ./cmd/calendard
	go vet -tags interop ./jobs/webhook
	go tool staticcheck ./...

# Demo data is off by default so that a production data directory never gets it by accident; make run
# turns it on: a data directory without events gets DEMO_EVENTS (default 2000) generated
# events on start; DEMO_EVENTS=0 make run starts empty.
run:
	CALENDAR_ADMIN_APP_PASSWORD=$${CALENDAR_ADMIN_APP_PASSWORD:-$(DEV_APP_PASSWORD)} \
		go run ./cmd/calendard serve --data-dir $(DATA_DIR) --demo-events $${DEMO_EVENTS:-2000}

# Adds a generated calendar to DATA_DIR (stop make run first: the store is locked while it serves).
# The administrator gets make run's password when the store has no user yet.
seed:
	CALENDAR_ADMIN_APP_PASSWORD=$${CALENDAR_ADMIN_APP_PASSWORD:-$(DEV_APP_PASSWORD)} \
		go run ./cmd/calendard seed --data-dir $(DATA_DIR) --events $(EVENTS)

# Drives the server of make run (loopback only) and prints throughput and latency percentiles.
load:
	go run ./cmd/loadgen $(LOADFLAGS)

bench:
	go test -run='^$$' -bench=. -benchmem ./...

# Runs every fuzz target for FUZZTIME (one package and one target per go test -fuzz); new failing
# inputs land in testdata/fuzz as regression cases.
fuzz:
	@for t in $(FUZZ_TARGETS); do \
		dir=$${t%%:*}; name=$${t##*:}; \
		echo "fuzz $$dir $$name"; \
		go test -run='^$$' -fuzz="^$$name$$" -fuzztime=$(FUZZTIME) -fuzzminimizetime=3s $$dir || exit 1; \
	done

# Only cmd/calendard has golden files: a package whose tests define no -update flag would fail on it.
golden:
	go test ./cmd/calendard -update

tidy:
	go mod tidy
