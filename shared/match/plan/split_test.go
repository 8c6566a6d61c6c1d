package plan

import (
	"reflect"
	"strings"
	"testing"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"empty", "  ", nil},
		{"single intent", "reconcile the supplier invoices against the purchase order", []string{"reconcile the supplier invoices against the purchase order"}},
		{"and then", "reconcile the invoices and then translate the contract into French",
			[]string{"reconcile the invoices", "translate the contract into French"}},
		{"comma then", "summarize this report, then book a flight to Lisbon",
			[]string{"summarize this report", "book a flight to Lisbon"}},
		{"semicolon", "reset my vpn password; check the weather in Oslo",
			[]string{"reset my vpn password", "check the weather in Oslo"}},
		{"as well as", "transcribe the board call recording as well as draft a reply to the ticket",
			[]string{"transcribe the board call recording", "draft a reply to the ticket"}},
		{"plain and joining two commands", "reconcile the open invoices and translate the supplier contract",
			[]string{"reconcile the open invoices", "translate the supplier contract"}},
		{"plain and needs four words a side", "check the NDA from Acme and flag anything unusual",
			[]string{"check the NDA from Acme and flag anything unusual"}},
		{"three parts", "book a hotel in Rome, then rent a car there and also convert 200 dollars to euros",
			[]string{"book a hotel in Rome", "rent a car there", "convert 200 dollars to euros"}},
		{"and joining nouns", "reconcile the invoices and the receipts from March", []string{"reconcile the invoices and the receipts from March"}},
		{"and joining plural nouns", "compare invoices and receipts for the quarter", []string{"compare invoices and receipts for the quarter"}},
		{"and before a question word", "tell me the time and what the weather is", []string{"tell me the time and what the weather is"}},
		{"short sides stay whole", "salt and pepper", []string{"salt and pepper"}},
		{"letters whose lower case is shorter", "İstanbul İzmir İnegöl hotels please, and then book a flight to Paris next week",
			[]string{"İstanbul İzmir İnegöl hotels please", "book a flight to Paris next week"}},
		{"letters whose lower case is longer", "ȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺ check the weather in Oslo. book a flight to Rome",
			[]string{"ȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺ check the weather in Oslo", "book a flight to Rome"}},
		{"an initial's full stop", "I'm executor for Mr R. Pallister, 14 Quarry Lane. The family want the house cleared before the sale",
			[]string{"I'm executor for Mr R. Pallister, 14 Quarry Lane", "The family want the house cleared before the sale"}},
		{"a title's full stop", "please ask Dr. Okafor to sign the form. Then book a flight to Rome",
			[]string{"please ask Dr. Okafor to sign the form", "book a flight to Rome"}},
		{"invalid bytes cut where the cue is", "0 0 0. \xfa\xfa\xfa 0 . 0", []string{"0 0 0", "\xfa\xfa\xfa 0 . 0"}},
		{"short cue side stays whole", "do it; then stop", []string{"do it; then stop"}},
		// An acknowledgement asks for nothing: "sounds" named a music
		// player's skill and made a plan of it.
		{"an acknowledgement is no part", "Yeah, that sounds great. Could you tell me what's left in my savings first?",
			[]string{"Could you tell me what's left in my savings first?"}},
		{"an acknowledgement that goes on to ask is a part", "Sounds good, book the table. Then find a taxi for four people",
			[]string{"Sounds good, book the table", "find a taxi for four people"}},
		{"a statement of what the caller has is no part", "I need a single ticket to Rome. I have 3 suitcases to check",
			[]string{"I need a single ticket to Rome"}},
		{"a count of what is needed is no part", "I'm searching for a cheap hotel in Porto. We need 3 rooms",
			[]string{"I'm searching for a cheap hotel in Porto"}},
		{"a put-off is no part", "Maybe at a later time. How warm will it be in Porto next Tuesday",
			[]string{"How warm will it be in Porto next Tuesday"}},
		// The occasion of an errand asks for nothing: a sentence saying
		// the caller is off on a trip made a plan of a flight and a house
		// search.
		{"a number read out is one part", "Thanks, please send two thousand four hundred and thirty dollars to my savings account",
			[]string{"Thanks, please send two thousand four hundred and thirty dollars to my savings account"}},
		{"an occasion is no part", "I'm going on a trip. Could you look up one-way fares to Oslo?",
			[]string{"Could you look up one-way fares to Oslo?"}},
		{"an occasion that goes on to ask is a part", "We're visiting Rome and we need a hotel near the station. Then book a cab",
			[]string{"We're visiting Rome and we need a hotel near the station", "book a cab"}},
		{"acknowledgements only", "That sounds like a lovely place to stay. Thanks so much for the quick replies",
			[]string{"That sounds like a lovely place to stay", "Thanks so much for the quick replies"}},
		{"and with short right side", "book a flight and hotel", []string{"book a flight and hotel"}},
		{"verb ending in ss is a command", "summarize the travel policy and process my refund request",
			[]string{"summarize the travel policy", "process my refund request"}},
		{"delivery verb after and", "reconcile these supplier invoices against the PO and send me a JSON summary",
			[]string{"reconcile these supplier invoices against the PO and send me a JSON summary"}},
		{"filler clause is no task", "my bike tyre is flat and I do not know how to fix it; can you help me",
			[]string{"my bike tyre is flat and I do not know how to fix it; can you help me"}},
		{"another after and", "book a table for 7pm tonight and another one for Friday",
			[]string{"book a table for 7pm tonight and another one for Friday"}},
		{"number after and", "add five and 20 more", []string{"add five and 20 more"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Split(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Split(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestSplitLoose: the loose splitter proposes the parts Split keeps whole
// because one side is short or starts with a verb that hands the result
// on, and still keeps noun phrases, questions and a result sent back to
// the caller whole.
func TestSplitLoose(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"three-word clause before and", "check tomorrow's weather and book a hotel if it's sunny",
			[]string{"check tomorrow's weather", "book a hotel if it's sunny"}},
		{"hand-off verb after and", "find a restaurant for the team dinner and put it in everyone's calendar",
			[]string{"find a restaurant for the team dinner", "put it in everyone's calendar"}},
		{"three words a side", "reset my password and translate this contract",
			[]string{"reset my password", "translate this contract"}},
		{"strong cues as Split", "summarize this report, then book a flight to Lisbon",
			[]string{"summarize this report", "book a flight to Lisbon"}},
		{"result sent back to the caller", "reconcile these supplier invoices against the PO and send me a JSON summary",
			[]string{"reconcile these supplier invoices against the PO and send me a JSON summary"}},
		{"result sent back later in the clause", "summarize the quarterly board report and email the JSON summary back to me",
			[]string{"summarize the quarterly board report and email the JSON summary back to me"}},
		{"a delivery verb that only shapes the result", "summarize the quarterly report and keep it under a page",
			[]string{"summarize the quarterly report and keep it under a page"}},
		{"and joining nouns", "reconcile the invoices and the receipts from March", []string{"reconcile the invoices and the receipts from March"}},
		{"and before a question word", "tell me the time and what the weather is", []string{"tell me the time and what the weather is"}},
		{"short sides stay whole", "book a flight and hotel", []string{"book a flight and hotel"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SplitLoose(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("SplitLoose(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
	// What Split keeps whole for plans to stay rare stays whole there.
	for _, in := range []string{"check tomorrow's weather and book a hotel if it's sunny",
		"find a restaurant for the team dinner and put it in everyone's calendar"} {
		if got := Split(in); len(got) != 1 {
			t.Errorf("Split(%q) = %q, want it whole", in, got)
		}
	}
}

func TestSplitCapsParts(t *testing.T) {
	got := Split("book a flight to Rome; book a hotel in Rome; rent a car in Rome; convert 100 dollars to euros; check the weather in Rome")
	if len(got) != MaxParts {
		t.Fatalf("got %d parts %q, want %d", len(got), got, MaxParts)
	}
	if got[MaxParts-1] != "convert 100 dollars to euros and check the weather in Rome" {
		t.Errorf("last part keeps the tail: %q", got[MaxParts-1])
	}
}

func FuzzSplit(f *testing.F) {
	f.Add("reconcile the invoices and then translate the contract")
	f.Add("; ; and and , then ")
	f.Add("Sounds good, yes. Mr R. Smith, Card WL 2900.")
	f.Fuzz(func(t *testing.T, s string) {
		for _, parts := range [][]string{Split(s), SplitLoose(s)} {
			if len(parts) > MaxParts {
				t.Fatalf("%d parts", len(parts))
			}
			for i, p := range parts {
				if p == "" && len(parts) > 1 {
					t.Fatalf("empty part in %q", parts)
				}
				// A part is the request's own text, cut at cues; only the
				// tail past MaxParts is joined.
				if i < MaxParts-1 && !strings.Contains(s, p) {
					t.Fatalf("part %q is not in %q", p, s)
				}
			}
		}
	})
}

func TestOrdered(t *testing.T) {
	for _, tt := range []struct {
		text string
		want bool
	}{
		{"Send me my rent statement, then set up a Direct Debit", true},
		{"log the fall, and then get the step repaired", true},
		{"Book the table; then two places on the tour", true},
		{"Order the shirt, and after that book the camp", true},
		{"Thanks. Can you find me a bus to Fresno?", false},
		{"check stock of tape and reorder if we have less than 50", false},
		{"Okay then, find me a bus", false},
	} {
		if got := Ordered(tt.text); got != tt.want {
			t.Errorf("Ordered(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}
