package filter_test

import (
	"fmt"

	"github.com/skillmatch/skillmatch/shared/a2a/card"
	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/match/extract"
	"github.com/skillmatch/skillmatch/shared/match/filter"
)

func ExampleKeep() {
	cat := &catalog.Catalog{Agents: []catalog.Agent{{
		Card: &card.Card{
			ID:                 "docs",
			DefaultInputModes:  []string{"text/plain", "image/*"},
			DefaultOutputModes: []string{"application/json"},
			Skills: []card.Skill{
				{ID: "ocr"},
				{ID: "pdf-extract", InputModes: []string{"application/pdf"}},
			},
		},
		Status: catalog.DefaultStatus,
	}}}
	req := &extract.Requirement{InputTypes: []string{"application/pdf"}, OutputTypes: []string{"application/json"}}
	res := filter.Keep(req, cat)
	res.Explain(req, cat)
	fmt.Println(res.Keep, res.Kept)
	for _, r := range res.Rejections {
		fmt.Printf("%s/%s %s: %s\n", r.Agent, r.Skill, r.Rule, r.Reason)
	}
	// Output:
	// [false true] 1
	// docs/ocr input-type: skill accepts text/plain, image/*; task attaches application/pdf
}
