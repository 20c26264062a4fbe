package handlers

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/julienschmidt/httprouter"
)

// ExplorePath is the address of the explorer: a page that searches, filters and pages through the
// events with the public API and shows each route it calls. It is another representation of the same
// routes, outside the REST namespace like the probes, so neither the namespace index nor /doc lists it.
const ExplorePath = "/explore/"

// The page's files are plain HTML, CSS and JavaScript, served as they are: no build step, and nothing
// loaded from anywhere but this service.
//
//go:embed explore
var exploreFiles embed.FS

// exploreCSP lets the page run only its own script and style and talk only to its own origin: the API
// it explores. It has no form to submit, nothing to frame it, and no image.
const exploreCSP = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// exploreAsset is one embedded file, read once at start-up.
type exploreAsset struct {
	body        []byte
	contentType string
	etag        string
}

// exploreTypes are the media types of the page's files by extension: set here rather than by
// mime.TypeByExtension, which reads the host's MIME tables.
var exploreTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
}

// exploreAssets maps each file's name under ExplorePath ("" is the page itself) to its content.
var exploreAssets = loadExploreAssets()

func loadExploreAssets() map[string]exploreAsset {
	assets := map[string]exploreAsset{}
	err := fs.WalkDir(exploreFiles, "explore", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := exploreFiles.ReadFile(p)
		if err != nil {
			return err
		}
		ct, ok := exploreTypes[path.Ext(p)]
		if !ok {
			panic("explore: no media type for " + p) // a file added without its type: fail every test
		}
		sum := sha256.Sum256(body)
		name := strings.TrimPrefix(p, "explore/")
		if name == "index.html" {
			name = ""
		}
		assets[name] = exploreAsset{body: body, contentType: ct, etag: `"` + hex.EncodeToString(sum[:12]) + `"`}
		return nil
	})
	if err != nil {
		panic(err) // the files are compiled in: reading them cannot fail
	}
	return assets
}

// explorer is the explorer's family, on r: GET and HEAD on its files, and the redirect of its address
// without the trailing slash, under which the page's relative links would not resolve. Its files need
// no credentials, and it is not a path of the API (docs/API.md, The explorer).
func (h *Handler) explorer(r *httprouter.Router) family {
	bare := strings.TrimSuffix(ExplorePath, "/")
	redirect := labelled(ExplorePath, func(w http.ResponseWriter, req *http.Request, _ httprouter.Params) {
		target := ExplorePath
		if req.URL.RawQuery != "" {
			target += "?" + req.URL.RawQuery
		}
		http.Redirect(w, req, target, http.StatusMovedPermanently)
	})
	files := labelled(ExplorePath, h.exploreFile)
	for _, m := range []string{http.MethodGet, http.MethodHead} {
		r.Handle(m, bare, redirect)
		r.Handle(m, ExplorePath+"*file", files)
	}
	return family{patterns: []string{bare, ExplorePath}, handler: r}
}

// exploreFile serves one of the explorer's files, revalidated on each use by its content's hash, so
// that a new binary's page is never mixed with an old cached script.
func (h *Handler) exploreFile(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	asset, ok := exploreAssets[strings.TrimPrefix(ps.ByName("file"), "/")]
	if !ok {
		h.writeError(w, requestOf(r), errNoRoute)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", asset.contentType)
	hd.Set("ETag", asset.etag)
	hd.Set("Cache-Control", "no-cache")
	hd.Set("Content-Security-Policy", exploreCSP)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer")
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(asset.body))
}
