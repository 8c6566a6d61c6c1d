package extract_test

import (
	"fmt"

	"github.com/skillmatch/skillmatch/shared/a2a/task"
	"github.com/skillmatch/skillmatch/shared/match/extract"
)

func ExampleFromTask() {
	text := func(id, s string) *task.Task {
		return &task.Task{ID: id, Message: task.Message{Role: "user", Parts: []task.Part{{Text: s}}}}
	}
	r := extract.FromTask(text("t-1", "Summarise this PDF as a JSON report and stream the results"))
	fmt.Println(r.OutputTypes, r.Streaming)

	r = extract.FromTask(text("t-2", "I have a PDF; what does it say?"))
	fmt.Println(r.OutputTypes, r.Streaming)
	// Output:
	// [application/json] true
	// [] false
}
