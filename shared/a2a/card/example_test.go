package card_test

import (
	"fmt"

	"github.com/skillmatch/skillmatch/shared/a2a/card"
)

func ExampleParse() {
	data := []byte(`{
	  "protocolVersion": "0.3.0",
	  "name": "Harbour <b>Pilot</b>",
	  "url": "https://pilot.example.test/a2a",
	  "defaultInputModes": ["text"],
	  "defaultOutputModes": ["text", "application/pdf"],
	  "security": [{"portAuth": ["berths.read"]}],
	  "skills": [{"id": "berth", "name": "Find a berth", "description": "Finds a free berth.",
	              "inputModes": ["text", "image/jpeg; q=0.8"]}]
	}`)
	c, err := card.Parse("harbour-pilot", data)
	if err != nil {
		fmt.Println(err)
		return
	}
	s := &c.Skills[0]
	fmt.Println(c.Name)
	fmt.Println(c.Interfaces[0].Binding, c.ProtocolVersion)
	fmt.Println(c.EffectiveInputModes(s), c.EffectiveOutputModes(s))
	fmt.Println(c.EffectiveSecurity(s))
	fmt.Println(card.Key(c.ID, s.ID))
	for _, n := range c.Notes {
		fmt.Println("note:", n)
	}

	_, err = card.Parse("harbour-pilot", []byte(`{"name": "Harbour Pilot", "skills": [{"id": "berth"}]}`))
	fmt.Println(err)
	// Output:
	// Harbour Pilot
	// JSONRPC 0.3.0
	// [text/plain image/jpeg] [text/plain application/pdf]
	// [map[portAuth:[berths.read]]]
	// harbour-pilot/berth
	// note: name: markup removed
	// note: security[0]: scheme "portAuth" is not declared in securitySchemes
	// invalid card "harbour-pilot": skills[0].name: missing
}
