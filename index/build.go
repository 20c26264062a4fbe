package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"go.uber.org/zap"
)

// builder feeds the documents of one language being rebuilt to Bleve's offline builder, from a
// goroutine of its own, so that the languages are built side by side and beside the scan. The offline
// builder analyses a batch, writes its segment to a file at once, and merges the files into one
// segment when it closes. Building through the live index's batches also kept the segments in memory
// until Bleve's persister wrote them, merged them again and again as they came, and measured every
// document for its statistics: a 1M build took a third longer that way (docs/BENCHMARKS.md, section
// "The index build").
type builder struct {
	l    *lang
	path string
	docs []document
	// later names the documents left out of the build to keep each segment's text within
	// buildSegmentText, for indexLater; the goroutine writes it, and wait hands it over.
	later []docRef
	// queue carries chunks of documents to the goroutine; done receives its first error, or nil, once
	// the queue is closed and drained and the index is open. stopped tells the goroutine that the
	// build was abandoned, and is not to be merged and opened. close and wait clear queue and done.
	queue   chan []document
	done    chan error
	stopped atomic.Bool
}

// builderChunk is how many documents go to a builder's goroutine at a time. Its queue holds two
// segments' worth: while one language builds a segment, the scan goes on feeding the others (with
// room for two chunks only, the scan waited for each segment of each language).
const builderChunk = 256

// buildPath is where the offline builders write their segments before merging them, under the
// index's directory dir: the system's temporary directory may be small, or memory.
func buildPath(dir string) string { return filepath.Join(dir, "build") }

// Options of Bleve's offline builder: buildBatchSize documents to a segment, and buildMergeMax segments
// merged at a time. The largest language of a 1M calendar (English, 282,000 documents) makes 282
// segments, so every language is merged in one round, once its scan is done (in rounds of 50, the
// last round merged the largest language a second time, alone on one core). Segments of 1,000
// keep a 1M build's peak anonymous memory under 1 GB, and built as fast as any size tried
// (docs/BENCHMARKS.md, section "The index build").
const (
	buildBatchSize = 1000
	buildMergeMax  = 1000
)

// buildSegmentText bounds the searched text of one segment of a build. The offline builder analyses
// a segment's documents together when it has buildBatchSize of them, whatever their length: a
// thousand events with 64 KB descriptions would take it gigabytes (syncTextBytes). A document that
// would take its segment past the bound is left out, and indexed once the build is done, as the
// syncer indexes (indexLater). Segments of ordinary events hold far less: 220 KB for the generated
// calendar, and 4 MB would take descriptions of 4 KB on average.
const buildSegmentText = 4 << 20

// startBuilder starts the builder of l's index under dir; progress counts it once merged.
func startBuilder(dir string, l *lang, progress *Loading) *builder {
	queue, done := make(chan []document, 2*buildBatchSize/builderChunk), make(chan error, 1)
	b := &builder{l: l, path: bleveDir(dir, l.code), queue: queue, done: done}
	go func() {
		err := b.build(queue, buildPath(dir))
		for range queue { // drain after a failure, so that add never blocks; not b.queue, which close clears
		}
		if err != nil {
			err = fmt.Errorf("index: rebuild %s: %w", b.l.code, err)
		} else {
			progress.add(1)
		}
		done <- err
	}()
	return b
}

// build indexes the documents of queue into a new index at b.path, and opens it for b.l.
func (b *builder) build(queue <-chan []document, tmp string) error {
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		return err
	}
	bb, err := bleve.NewBuilder(b.path, b.l.mapping, map[string]any{
		"buildPathPrefix": tmp, "batchSize": buildBatchSize, "mergeMax": buildMergeMax})
	if err != nil {
		return err
	}
	n, text := 0, 0
	for docs := range queue {
		if b.stopped.Load() {
			return errStopped
		}
		for i := range docs {
			d := &docs[i]
			if n%buildBatchSize > 0 && text+d.textBytes() > buildSegmentText {
				b.later = append(b.later, docRef{d.kind, d.id})
				continue
			}
			if err := d.index(bb); err != nil {
				return err
			}
			if n++; n%buildBatchSize == 0 {
				text = 0 // the builder wrote the segment
			} else {
				text += d.textBytes()
			}
		}
	}
	if b.stopped.Load() {
		return errStopped
	}
	var idx bleve.Index
	if n == 0 {
		// The offline builder cannot close without a segment: an empty language gets an empty index.
		if err := os.RemoveAll(b.path); err != nil {
			return err
		}
		idx, err = bleve.NewUsing(b.path, b.l.mapping, scorch.Name, scorch.Name, runtimeConfig())
	} else if err = bb.Close(); err == nil {
		idx, err = bleve.OpenUsing(b.path, runtimeConfig())
	}
	if err != nil {
		return err
	}
	if err := idx.SetInternal(keyMapping, []byte(mappingVersion)); err != nil {
		closeBleve(idx)
		return err
	}
	b.l.bleve = idx
	return nil
}

// add indexes d, handing a chunk over once it is full.
func (b *builder) add(d document) {
	if b.docs = append(b.docs, d); len(b.docs) == builderChunk {
		b.queue <- b.docs
		b.docs = nil
	}
}

// close hands over what is left: the builder goes on to merge and open the index (wait).
func (b *builder) close() {
	if len(b.docs) > 0 {
		b.queue <- b.docs
	}
	b.docs = nil
	close(b.queue)
	b.queue = nil
}

// wait waits for a closed builder to have built and opened the index; it reports the first failure.
func (b *builder) wait() error {
	err := <-b.done
	b.done = nil
	return err
}

// stop ends a builder that wait has not returned from: it abandons the build unless closed, and
// waits for the chunk in progress.
func (b *builder) stop() {
	if b.queue != nil {
		b.stopped.Store(true)
		close(b.queue)
		b.queue = nil
	}
	if b.done != nil {
		<-b.done
		b.done = nil
	}
}

// errStopped ends a build that was stopped: its segments are left for the next build to remove.
var errStopped = errors.New("stopped")

// indexLater indexes into l's Bleve index the documents of refs that its build left out, a bounded
// amount of text at a time, as the syncer does.
func (ix *Index) indexLater(ctx context.Context, l *lang, refs []docRef) error {
	if len(refs) > 0 {
		ix.log.Info("indexing the documents left out of the build", zap.String("lang", string(l.code)), zap.Int("documents", len(refs)))
	}
	for len(refs) > 0 {
		docs, n, err := ix.loadDocuments(ctx, refs)
		if err != nil {
			return err
		}
		refs = refs[n:]
		b := l.bleve.NewBatch()
		for _, d := range docs {
			if err := d.update(b); err != nil {
				return err
			}
		}
		if err := l.bleve.Batch(b); err != nil {
			return fmt.Errorf("index: rebuild %s: %w", l.code, err)
		}
	}
	return nil
}
