// Package dashboard serves ktune's interactive dashboard (seed 004): a local web page to
// monitor, analyse and visualise a tuning run while it runs or after it ended, in the
// manner of Kernel Tuner's KTdashboard.
//
// A Server reads a results store (every run it holds, and a run still being tuned by
// another process, which it polls) or one recording read from a file. Its page draws a
// scatter plot of the evaluations with selectable axes, colour and filters, and charts of
// each parameter's significance (Pearson correlation with the objective) and Sobol
// sensitivity, which the server computes with package analysis over the evaluations that
// pass the page's filters. Everything the page shows comes from JSON endpoints a program
// can read too (see Handler). The page is plain HTML, CSS and JavaScript embedded in the
// binary: it needs nothing from the network.
//
// The server only reads: it never writes to the store.
package dashboard

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/store"
)

// static holds the page's script and style sheet, pages its HTML templates.
//
//go:embed static
var static embed.FS

//go:embed pages
var pages embed.FS

// RecordingID is the run id under which a server of one recording (NewRecording) serves
// it: no store assigns 0.
const RecordingID = 0

// Server is the dashboard of a results store or of one recording. It is an http.Handler.
type Server struct {
	st   store.Store       // nil when serving rec
	db   string            // the store's name in messages
	rec  *result.Recording // the recording served as run RecordingID; nil with a store
	name string            // rec's name
	mux  *http.ServeMux
}

// NewStore returns the dashboard of every run in st, which db names in messages (its
// path, as --db gives it). A run still being tuned is read as it grows; give st the
// status of now (tuner.LiveStatus) so that a killed run reads as interrupted.
func NewStore(st store.Store, db string) *Server {
	s := &Server{st: st, db: db}
	s.routes()
	return s
}

// NewRecording returns the dashboard of one recording, read from a file already, which
// it serves as run RecordingID under name.
func NewRecording(rec *result.Recording, name string) *Server {
	s := &Server{rec: rec, name: name}
	s.routes()
	return s
}

// ServeHTTP serves the page, its assets and the JSON endpoints.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

func (s *Server) routes() {
	s.mux = http.NewServeMux()
	files, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // the embedded folder is there: go:embed checked it
	}
	s.mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(files)))
	s.mux.HandleFunc("GET /{$}", s.home)
	s.mux.HandleFunc("GET /runs/{id}", s.runPage)
	s.mux.HandleFunc("GET /api/runs", s.apiRuns)
	s.mux.HandleFunc("GET /api/runs/{id}", s.apiRun)
	s.mux.HandleFunc("GET /api/runs/{id}/evaluations", s.apiEvaluations)
	s.mux.HandleFunc("GET /api/runs/{id}/analysis", s.apiAnalysis)
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, fmt.Errorf("no page %s here: the dashboard serves / (the runs), /runs/ID and /api/runs/...", r.URL.Path))
	})
}

// Listen binds addr (host:port; port 0 for any free one) for Serve. Its errors say what
// to do (the port is taken, the host is not this machine's); they leave addr for the
// caller to name.
func Listen(addr string) (net.Listener, error) {
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return nil, fmt.Errorf("want HOST:PORT, such as 127.0.0.1:8080 (port 0 takes any free one): %v", err)
	}
	l, err := net.Listen("tcp", addr)
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		return nil, errors.New("the port is in use (by another dashboard or server): give another port, or port 0 for any free one")
	case errors.Is(err, syscall.EADDRNOTAVAIL):
		return nil, errors.New("this machine has no such address to listen on: give 127.0.0.1 (this machine only) or one of its own addresses")
	case errors.Is(err, syscall.EACCES):
		return nil, errors.New("not allowed to listen on that port (ports below 1024 need privileges): give a port of 1024 or more")
	case err != nil:
		return nil, err
	}
	return l, nil
}

// Serve serves h on l until ctx ends, then shuts the server down, waiting up to a second
// for requests under way. It returns nil when stopped by ctx.
func Serve(ctx context.Context, l net.Listener, h http.Handler) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		shut, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		srv.Shutdown(shut)
		<-done
		return nil
	}
}

// URL is the address a browser opens for a listener's address: a wildcard host (0.0.0.0,
// ::) is shown as localhost, which reaches it from this machine.
func URL(addr net.Addr, path string) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return "http://" + addr.String() + path
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(strings.Trim(host, "[]"), port) + path
}
