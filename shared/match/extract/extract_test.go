package extract

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/skillmatch/skillmatch/shared/a2a/mediatype"
	"github.com/skillmatch/skillmatch/shared/a2a/task"
)

const (
	pdf  = "application/pdf"
	csv  = "text/csv"
	js   = "application/json"
	md   = "text/markdown"
	txt  = "text/plain"
	xlsx = mediatype.Xlsx
)

func TestOutputTypes(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		// Asked for.
		{"reconcile these three supplier PDFs against PO-7781 and send me a JSON summary", []string{js}},
		{"list the open invoices as a CSV", []string{csv}},
		{"Give me the totals in csv format.", []string{csv}},
		{"produce a PDF report of last quarter's sales", []string{pdf}},
		{"please export to excel", []string{xlsx}},
		{"render the chart as an image/png", []string{"image/png"}},
		{"summarise the meeting and return markdown", []string{md}},
		{"read this poem aloud and make an mp3 of it", []string{"audio/mpeg"}},
		{"convert this pdf to markdown", []string{md}},
		{"convert from csv to json", []string{js}},
		{"turn the attached notes into a single PDF", []string{pdf}},
		{"can you reply in json", []string{js}},
		{"respond with JSON please", []string{js}},
		{"I'd like a CSV", []string{csv}},
		{"we need a csv export of all customers", []string{csv}},
		{"I want to generate a pdf invoice", []string{pdf}},
		{"I'd like you to send me a spreadsheet", []string{csv, xlsx}},
		{"save it as plain text", []string{txt}},
		{"answer as text", []string{txt}},
		{"transcribe the interview to text", []string{txt}},
		{"give me the numbers as CSV, JSON or XML", []string{js, "application/xml", csv}},
		{"send me a pdf and a csv", []string{pdf, csv}},
		{"export it to a word document", []string{mediatype.Docx}},
		{"convert the slides to word", []string{mediatype.Docx}},
		{"put the results in the form of a table in markdown format", []string{md}},
		{"generate an image of a lighthouse at dusk", pictureTypes},
		{"who sits under the sales director, as a picture", []string{"image/gif", "image/jpeg", "image/png", "image/webp", "image/svg+xml"}},
		{"send me a photo of the whiteboard", imageTypes},
		{"get me a csv of the orders", []string{csv}},
		{"not as a pdf, as a csv", []string{csv}},
		{"write the summary to a .md file", []string{md}},
		{"Export as XLSX.", []string{xlsx}},

		// Inputs, tools and idioms: no output request.
		{"I have a PDF", nil},
		{"summarise this pdf", nil},
		{"summarise the PDF I attached", nil},
		{"what is in the json", nil},
		{"find the errors in json files", nil},
		{"there are errors in the csv", nil},
		{"write a json parser in go", nil},
		{"I need a pdf reader", nil},
		{"I need a PDF translated into French", nil},
		{"create a json parser", nil},
		{"I'll send you a PDF tomorrow", nil},
		{"I will send a pdf tomorrow", nil},
		{"we can export a csv if that helps", nil},
		{"I'm going to send a pdf later", nil},
		{"formats such as PDF and DOCX are supported", nil},
		{"it handles xml as well as json", nil},
		{"make a csv into a pdf", []string{pdf}},
		{"export and summarise a pdf", nil},
		{"create a summary of a pdf", nil},
		{"generate insights from pdfs", nil},
		{"help me with a csv", nil},
		{"don't send me a pdf", nil},
		{"something like a csv would be odd", nil},
		{"in a word, no", nil},
		{"explain it in a word", nil},
		{"send me a text when it's done", nil},
		{"send Omar a reminder in the shape of a text", nil},
		{"send it to me as a text", nil},
		{"give a presentation on sales", nil},
		{"the photo is blurry, fix it", nil},
		{"describe an image", nil},
		{"you get a pdf every week", nil},
		{"compare two csv files and report differences", nil},
		{"my json and/or yaml configs are broken", nil},
		{"translate this document to french", nil},
		{"reduce the text to a word count", nil},
		{"build a docker image for the api", nil},
		{"create a container image from this repo", nil},
		{"generate a base image with go installed", nil},
		{"give me a zip code for Berlin", nil},
		{"generate a json web token", nil},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			got := fromText("t", tt.text).OutputTypes
			want := sortedSet(append([]string(nil), tt.want...))
			if !reflect.DeepEqual(got, want) {
				t.Errorf("OutputTypes(%q) = %q, want %q", tt.text, got, want)
			}
		})
	}
}

// TestOutputsLoose: outputs read from a thing the words name, asked for by
// a verb, are loose (dropped when no skill passes with them); a format
// asked for by a preposition or a file type's name is not, nor is one the
// caller declares.
func TestOutputsLoose(t *testing.T) {
	tests := []struct {
		text  string
		loose bool
	}{
		{"We need aerial photos of the whole roof for the residents' association", true},
		{"send me a photo of the whiteboard", true},
		{"I'll need slides in advance and screen-reading software", true},
		{"generate an image of a lighthouse at dusk", true},
		{"who sits under the sales director, as a picture", false},
		{"convert my video to a gif", false},
		{"send me a pdf and a photo", false},
		{"we need a csv export of all customers", false},
		{"book me a table for two", false},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			if got := fromText("t", tt.text).OutputsLoose; got != tt.loose {
				t.Errorf("OutputsLoose(%q) = %v, want %v", tt.text, got, tt.loose)
			}
		})
	}
	declared := &task.Task{ID: "d", Message: task.Message{Role: "user", Parts: []task.Part{{Text: "send me a photo of the whiteboard"}}}}
	declared.Constraints.AcceptedOutputTypes = []string{"image/png"}
	if FromTask(declared).OutputsLoose {
		t.Error("declared outputs read as loose")
	}
	loose := fromText("t", "send me a photo of the whiteboard")
	if got := loose.WithoutLooseOutputs(); len(got.OutputTypes) > 0 || !slices.Equal(got.DroppedOutputs, loose.OutputTypes) {
		t.Errorf("without loose outputs: outputs %v, dropped %v; want none, and %v dropped", got.OutputTypes, got.DroppedOutputs, loose.OutputTypes)
	}
	if got := FromTask(declared).WithoutLooseOutputs(); len(got.OutputTypes) == 0 || got.DroppedOutputs != nil {
		t.Errorf("declared outputs dropped: outputs %v, dropped %v", got.OutputTypes, got.DroppedOutputs)
	}
}

func TestStreaming(t *testing.T) {
	tests := []struct {
		text string
		want bool
	}{
		{"stream the results as you find them", true},
		{"Stream me the results", true},
		{"stream back progress", true},
		{"I want live updates while it runs", true},
		{"tell me as it happens", true},
		{"show real-time progress", true},
		{"show real time progress", true},
		{"send progress updates", true},
		{"keep me posted", true},
		{"return results with streaming", true},
		{"incremental results are fine", true},

		{"recommend a streaming service for anime", false},
		{"a stream of consciousness poem", false},
		{"stream the movie tonight", false},
		{"no need to stream the results", false},
		{"don't stream the output", false},
		{"without streaming", false},
		{"live music in Berlin this weekend", false},
		{"analyse real-time data from sensors", false},
		{"send a progress report", false},
		{"summarise this pdf", false},
	}
	for _, tt := range tests {
		if got := fromText("t", tt.text).Streaming; got != tt.want {
			t.Errorf("Streaming(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

func TestInputTypes(t *testing.T) {
	tests := []struct {
		name string
		file task.File
		want string
	}{
		{"media type", task.File{MediaType: "application/pdf"}, pdf},
		{"case and parameters", task.File{MediaType: "Text/CSV; charset=utf-8", Name: "x.pdf"}, csv},
		{"legacy word", task.File{MediaType: "text"}, txt},
		{"extension", task.File{Name: "Report.PDF"}, pdf},
		{"windows path", task.File{Name: `C:\docs\sheet.xlsx`}, xlsx},
		{"jpg", task.File{Name: "a.jpg"}, "image/jpeg"},
		{"jpeg", task.File{Name: "a.jpeg"}, "image/jpeg"},
		{"octet-stream refined by name", task.File{MediaType: "application/octet-stream", Name: "a.mp3"}, "audio/mpeg"},
		{"wildcard refined by name", task.File{MediaType: "file", Name: "a.webp"}, "image/webp"},
		{"uri path", task.File{MediaType: "", URI: "https://x.example/f/clip.mov?sig=abc.pdf"}, "video/quicktime"},
		{"data uri", task.File{Name: "blob", URI: "data:image/svg+xml;base64,PHN2Zz4="}, "image/svg+xml"},
		{"unknown extension", task.File{Name: "a.xyz"}, mediatype.OctetStream},
		{"no extension", task.File{Name: "README"}, mediatype.OctetStream},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := tt.file
			got := inputTypes([]task.Part{{Text: "x"}, {File: &f}})
			if len(got) != 1 || got[0] != tt.want {
				t.Errorf("inputTypes(%+v) = %q, want [%q]", tt.file, got, tt.want)
			}
		})
	}
	parts := []task.Part{
		{File: &task.File{Name: "b.pdf"}},
		{File: &task.File{MediaType: "application/pdf"}},
		{File: &task.File{Name: "a.csv"}},
		{Data: json.RawMessage(`{"text":"ignored"}`)},
	}
	if got, want := inputTypes(parts), []string{pdf, csv}; !reflect.DeepEqual(got, want) {
		t.Errorf("dedup and sort: got %q, want %q", got, want)
	}
}

func TestFromTask(t *testing.T) {
	yes := true
	tk := &task.Task{
		ID: "t-1",
		Message: task.Message{Parts: []task.Part{
			{Text: "  reconcile   these\n\tsupplier PDFs\u200b "},
			{File: &task.File{Name: "a.pdf"}},
			{Data: json.RawMessage(`{"text":"structured payloads stay out of Need"}`)},
			{Text: "as a CSV please"},
		}},
		History: []task.Message{
			{Role: "user", Parts: []task.Part{{Text: "turn 1"}}},
			{Role: "user", Parts: []task.Part{{Text: "turn 2"}}},
			{Role: "agent", Parts: []task.Part{{Text: "which PO?"}}},
			{Role: "user", Parts: []task.Part{{File: &task.File{Name: "only-a-file.pdf"}}}},
			{Parts: []task.Part{{Text: "turn 3"}}},
			{Role: "user", Parts: []task.Part{{Text: "turn   4"}}},
		},
		Caller:      task.Caller{ID: "alice", Tenant: "acme", Scopes: []string{"finance.read"}, DataClass: "Confidential"},
		Constraints: task.Constraints{Streaming: &yes},
	}
	got := FromTask(tk)
	want := Requirement{
		TaskID:      "t-1",
		Need:        "reconcile these supplier PDFs as a CSV please",
		InputTypes:  []string{pdf},
		OutputTypes: []string{csv},
		Streaming:   true,
		DataClass:   "confidential",
		CallerID:    "alice",
		Tenant:      "acme",
		Scopes:      []string{"finance.read"},
		History:     []string{"turn 2", "turn 3", "turn 4"},
	}
	if !reflect.DeepEqual(got, want) {
		gj, _ := json.MarshalIndent(got, "", " ")
		wj, _ := json.MarshalIndent(want, "", " ")
		t.Errorf("got %s\nwant %s", gj, wj)
	}

	// A format the task's own files are describes them, not what to send
	// back: "my reading list is attached as a CSV" wants no CSV.
	described := &task.Task{ID: "t-2", Message: task.Message{Parts: []task.Part{
		{Text: "Attached is my reading list as a CSV - can you borrow these for me?"},
		{File: &task.File{Name: "list.csv"}},
	}}}
	if got := FromTask(described); got.OutputTypes != nil {
		t.Errorf("a file described by its format: output types %q, want none", got.OutputTypes)
	}

	// Explicit constraints beat the text, both ways.
	no := false
	tk.Constraints = task.Constraints{AcceptedOutputTypes: []string{"Application/JSON", "text"}, Streaming: &no}
	tk.Message.Parts[0].Text = "stream the results"
	got = FromTask(tk)
	if w := []string{js, txt}; !reflect.DeepEqual(got.OutputTypes, w) {
		t.Errorf("explicit output types: got %q, want %q", got.OutputTypes, w)
	}
	if got.Streaming {
		t.Error("explicit streaming false was overridden by the text")
	}
}

func TestScopesNilVersusEmpty(t *testing.T) {
	tk := &task.Task{ID: "t", Message: task.Message{Parts: []task.Part{{Text: "x"}}}}
	if got := FromTask(tk).Scopes; got != nil {
		t.Errorf("nil scopes became %q", got)
	}
	tk.Caller.Scopes = []string{}
	if got := FromTask(tk).Scopes; got == nil || len(got) != 0 {
		t.Errorf("empty scopes became %#v", got)
	}
	// The requirement owns its copy.
	tk.Caller.Scopes = []string{"a"}
	r := FromTask(tk)
	tk.Caller.Scopes[0] = "b"
	if r.Scopes[0] != "a" {
		t.Error("Requirement.Scopes aliases the task's slice")
	}
}

func TestNeedCap(t *testing.T) {
	text := strings.Repeat("word ", 1000)
	if got := Clean(text, 23); got != "word word word word" {
		t.Errorf("Need = %q", got)
	}
	if got := Clean("abcdefghij", 4); got != "abcd" {
		t.Errorf("a single long word is cut: %q", got)
	}
	if got := fromText("t", strings.Repeat("é", 3000)).Need; len([]rune(got)) != DefaultMaxNeed {
		t.Errorf("default cap: %d characters", len([]rune(got)))
	}
}

// fromText is the requirement of a bare text: no files, no caller (so no
// security or data-policy constraint).
func fromText(id, text string) Requirement {
	return FromTask(&task.Task{ID: id, Message: task.Message{Role: "user", Parts: []task.Part{{Text: text}}}})
}

func TestFromTextDeterministic(t *testing.T) {
	text := "reconcile these three supplier PDFs against PO-7781 and send me a JSON summary"
	a, b := fromText("t-1", text), fromText("t-1", text)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two runs differ")
	}
	if a.Need != text || a.Scopes != nil || a.DataClass != "" {
		t.Errorf("fromText = %+v", a)
	}
}

func BenchmarkFromText(b *testing.B) {
	text := strings.Repeat("reconcile these three supplier PDFs against PO-7781 and send me a JSON summary. ", 20)
	b.ReportAllocs()
	for b.Loop() {
		fromText("t", text)
	}
}
