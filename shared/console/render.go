package console

import (
	"bytes"
	"fmt"
	"html/template"
	"net/http"
	"strings"
	"time"

	"go.uber.org/zap"
)

// page is what every page's layout shows.
type page struct {
	Nav, Title, Operator string
}

func (s *Server) page(r *http.Request, nav, title string) page {
	return page{Nav: nav, Title: title, Operator: operatorOf(r.Context())}
}

var funcs = template.FuncMap{
	"pct":  func(f float64) string { return fmt.Sprintf("%.0f%%", 100*f) },
	"prob": func(f float64) string { return fmt.Sprintf("%.2f", f) },
	"num": func(f float64) string {
		return strings.TrimSuffix(strings.TrimSuffix(fmt.Sprintf("%.1f", f), "0"), ".")
	},
	"when": func(t time.Time) string {
		if t.IsZero() {
			return "—"
		}
		return t.UTC().Format("2006-01-02 15:04:05Z")
	},
	"join":   strings.Join,
	"assets": func() string { return assetVersion },
	"inc":    func(i int) int { return i + 1 },
	"rank": func(r int) string {
		if r == 0 {
			return "—"
		}
		return fmt.Sprintf("#%d", r)
	},
}

// pages are the templates, each parsed with the layout.
var pages = []string{"catalog", "decisions", "decision", "deadletters", "calibration"}

func parseTemplates() (map[string]*template.Template, error) {
	out := map[string]*template.Template{}
	for _, p := range pages {
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/"+p+".html")
		if err != nil {
			return nil, fmt.Errorf("console: template %s: %w", p, err)
		}
		out[p] = t
	}
	return out, nil
}

// render executes a page into a buffer first, so that a template error is
// a clean 500 rather than half a page.
func (s *Server) render(w http.ResponseWriter, r *http.Request, name string, data any) {
	var buf bytes.Buffer
	if err := s.tmpl[name].Execute(&buf, data); err != nil {
		s.fail(w, r, "rendering "+name, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = buf.WriteTo(w)
}

func (s *Server) fail(w http.ResponseWriter, r *http.Request, what string, err error) {
	s.cfg.Log.Warn("console: "+what, zap.String("path", r.URL.Path), zap.Error(err))
	http.Error(w, what+": "+err.Error(), http.StatusInternalServerError)
}
