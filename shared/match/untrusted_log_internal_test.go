package match

import (
	"fmt"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/retrieval/embed"
)

// A build names each skill its card text keeps from every task, with the
// reason, and only those; past a cap it counts the rest.
func TestNewLogsUntrustedSkills(t *testing.T) {
	spam := func(id string) catalog.Agent {
		a := weatherAgent(id)
		a.Card.Skills[0].Description = strings.Repeat("weather ", 20)
		return a
	}
	for _, tt := range []struct {
		name                string
		spammers, honests   int
		wantNamed, wantMore int
	}{
		{"none", 0, 5, 0, 0},
		{"two", 2, 5, 2, 0},
		{"past the cap", 25, 5, 20, 5},
	} {
		var agents []catalog.Agent
		for i := range tt.honests {
			agents = append(agents, weatherAgent(fmt.Sprintf("honest-%d", i)))
		}
		for i := range tt.spammers {
			agents = append(agents, spam(fmt.Sprintf("spam-%02d", i)))
		}
		core, logs := observer.New(zapcore.InfoLevel)
		if _, err := New(catalog.New(agents...), WithEmbedder(embed.Default()), WithLogger(zap.New(core))); err != nil {
			t.Fatal(err)
		}
		named := logs.FilterMessage("skill not trusted with any task").All()
		if len(named) != tt.wantNamed {
			t.Errorf("%s: %d skills named, want %d", tt.name, len(named), tt.wantNamed)
		}
		for _, e := range named {
			f := e.ContextMap()
			if s, _ := f["skill"].(string); !strings.HasPrefix(s, "spam-") || !strings.Contains(fmt.Sprint(f["reason"]), "keyword spam") {
				t.Errorf("%s: logged %v", tt.name, f)
			}
		}
		more := logs.FilterMessage("more skills not trusted with any task").All()
		switch {
		case tt.wantMore == 0 && len(more) > 0:
			t.Errorf("%s: a count of more skills was logged", tt.name)
		case tt.wantMore > 0 && (len(more) != 1 || more[0].ContextMap()["count"] != int64(tt.wantMore)):
			t.Errorf("%s: more = %v, want one line counting %d", tt.name, more, tt.wantMore)
		}
	}
}
