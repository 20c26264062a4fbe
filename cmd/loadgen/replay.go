package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// replay answers every GET with the answer the server at c.base gave the first time it was asked
// it (the same path, query and Accept-Encoding), kept in memory: a server that does nothing but copy
// bytes. Driven with the mix twice, the first run filling it, the second run's throughput is the
// most any server can reach under this mix on this machine, the generator's share of the cores
// included (`loadgen -replay`, docs/BENCHMARKS.md, section "The 50-client mix").
type replay struct {
	c            *client
	mu           sync.RWMutex
	answers      map[string]*answer
	hits, misses atomic.Int64
}

type answer struct {
	status int
	header http.Header
	body   []byte
}

func newReplay(c *client) *replay { return &replay{c: c, answers: map[string]*answer{}} }

func (p *replay) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		http.Error(w, "replay answers GET only", http.StatusMethodNotAllowed)
		return
	}
	key := r.Header.Get("Accept-Encoding") + " " + r.URL.RequestURI()
	p.mu.RLock()
	a := p.answers[key]
	p.mu.RUnlock()
	if a != nil {
		p.hits.Add(1)
	} else {
		p.misses.Add(1)
		var err error
		if a, err = p.fetch(r); err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		p.mu.Lock()
		p.answers[key] = a
		p.mu.Unlock()
	}
	maps.Copy(w.Header(), a.header)
	w.WriteHeader(a.status)
	w.Write(a.body)
}

// fetch asks the server for r's answer, as r's client would have: a compressed answer stays so.
func (p *replay) fetch(r *http.Request) (*answer, error) {
	ctx, cancel := context.WithTimeout(r.Context(), p.c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.c.base+r.URL.RequestURI(), nil)
	if err != nil {
		return nil, err
	}
	if enc := r.Header.Get("Accept-Encoding"); enc != "" {
		req.Header.Set("Accept-Encoding", enc)
	}
	res, err := p.c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	return &answer{res.StatusCode, res.Header.Clone(), body}, nil
}

// serveReplay serves a replay of the server c drives on l until ctx ends, then reports how many
// answers came from memory.
func serveReplay(ctx context.Context, c *client, l net.Listener, stderr io.Writer) error {
	p := newReplay(c)
	srv := &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stderr, "loadgen: replaying %s at http://%s until interrupted\n", c.base, l.Addr())
	go func() {
		<-ctx.Done()
		srv.Shutdown(context.Background())
	}()
	if err := srv.Serve(l); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	fmt.Fprintf(stderr, "loadgen: %d answers from memory, %d fetched from %s\n", p.hits.Load(), p.misses.Load(), c.base)
	return nil
}
