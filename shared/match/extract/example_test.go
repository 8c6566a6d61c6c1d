package extract_test

import (
	"fmt"

	"github.com/skillmatch/skillmatch/shared/match/extract"
)

func ExampleFromText() {
	r := extract.FromText("t-1", "Summarise this PDF as a JSON report and stream the results")
	fmt.Println(r.OutputTypes, r.Streaming)

	r = extract.FromText("t-2", "I have a PDF; what does it say?")
	fmt.Println(r.OutputTypes, r.Streaming)
	// Output:
	// [application/json] true
	// [] false
}
