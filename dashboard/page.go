package dashboard

import (
	"bytes"
	"fmt"
	"html/template"
	"net/http"
	"strconv"
)

var templates = template.Must(template.New("").Funcs(template.FuncMap{
	"best": func(r Run) string {
		if r.Best == nil {
			return "-"
		}
		return strconv.FormatFloat(*r.Best, 'g', 5, 64) + " " + unit(r.Objective)
	},
	"status": func(r Run) string {
		if r.Failed {
			return "failed"
		}
		return r.Status
	},
}).ParseFS(pages, "pages/*.html"))

// unit is what an objective's values are in: ms for time, else the name says it.
func unit(objective string) string {
	if objective == "time" {
		return "ms"
	}
	return ""
}

// runsPage is the list of runs.
type runsPage struct {
	DB   string
	Runs []Run
}

// runView is the page of one run; its script reads everything else from API.
type runView struct {
	Title string
	ID    int64
	API   string // the run's endpoint, /api/runs/ID
	Back  bool   // a link back to the list of runs
}

func render(w http.ResponseWriter, name string, data any) {
	var b bytes.Buffer
	if err := templates.ExecuteTemplate(&b, name, data); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(b.Bytes())
}

func (s *Server) home(w http.ResponseWriter, r *http.Request) {
	if s.rec != nil {
		s.view(w, RecordingID, s.name, false)
		return
	}
	runs, err := s.runs(r.Context())
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	render(w, "runs.html", runsPage{DB: s.db, Runs: runs})
}

func (s *Server) runPage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id, err := s.runID(ctx, r)
	if err != nil {
		code := http.StatusInternalServerError
		if he, ok := err.(*httpError); ok {
			code = he.code
		}
		http.Error(w, err.Error(), code)
		return
	}
	run, err := s.run(ctx, id)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	title := run.Name
	if run.Device != "" {
		title += " on " + run.Device
	}
	s.view(w, id, title, s.st != nil)
}

func (s *Server) view(w http.ResponseWriter, id int64, title string, back bool) {
	render(w, "run.html", runView{Title: title, ID: id, API: fmt.Sprintf("/api/runs/%d", id), Back: back})
}
