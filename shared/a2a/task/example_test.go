package task_test

import (
	"errors"
	"fmt"

	"github.com/skillmatch/skillmatch/shared/a2a/task"
)

func ExampleParse() {
	t, err := task.Parse([]byte(`{
	  "id": "t-1",
	  "message": {"parts": [
	    {"text": "reconcile these supplier PDFs and send me a JSON summary"},
	    {"kind": "file", "file": {"name": "invoice.pdf", "mimeType": "application/pdf"}}
	  ]},
	  "caller": {"scopes": ["finance.read"], "dataClass": "confidential"}
	}`))
	fmt.Println(t.ID, len(t.Message.Parts), t.Caller.Scopes, err)

	_, err = task.Parse([]byte(`{"id": "t-2", "message": {"parts": [{"text": "hi"}, {"file": {"uri": "https://x"}}]}}`))
	fmt.Println(err)
	fmt.Println(errors.Is(err, task.ErrInvalidTask))
	// Output:
	// t-1 2 [finance.read] <nil>
	// task "t-2": message.parts[1]: file part needs a mediaType or a name
	// true
}
