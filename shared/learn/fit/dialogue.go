package fit

import (
	"strings"

	"github.com/skillmatch/skillmatch/shared/learn/golden"
)

// DialogueSuffix ends the id of a dialogue task made from a training task:
// fitting keeps it in its source task's fold and cross-fitting part, so
// the same words are never both trained on and scored.
const DialogueSuffix = "#dialogue"

// Dialogues makes dialogue training tasks out of a set's single-turn
// training tasks, so the reranker's history features (has_history ..
// hist_agent) learn from any catalog, not only from sets that record
// conversations. A catalog's labelled texts say which skills share an
// agent, and that is all a conversation's topic needs:
//
//   - topic carried (one task in four): the earlier turn is a training
//     text of another skill of the same agent, the current turn a half of
//     the task's own words (the half that comes with a follow-up such as
//     "and book it for Friday", where the agent's domain was named before);
//   - topic switched (one in four, and every no-match task the hash
//     picks): the earlier turn is a text of another agent's skill and the
//     current turn the whole task, so the history must not outvote a
//     request that says what it wants.
//
// The label stays the task's own. Tasks that already have earlier turns
// are left as they are. poolKey groups the tasks an earlier turn may come
// from (fitting passes the cross-fitting fold, so that an earlier turn is
// never a text indexed as an example). Deterministic: the choices are
// hashes of task ids.
func Dialogues(tasks []golden.Task, poolKey func(*golden.Task) int) []golden.Task {
	type pool struct {
		all     []int            // tasks with an expected skill
		byAgent map[string][]int // ... of each agent
	}
	pools := map[int]*pool{}
	for i := range tasks {
		t := &tasks[i]
		if t.Expected == "" || len(t.History) > 0 {
			continue
		}
		k := poolKey(t)
		p := pools[k]
		if p == nil {
			p = &pool{byAgent: map[string][]int{}}
			pools[k] = p
		}
		p.all = append(p.all, i)
		a := agentOf(t.Expected)
		p.byAgent[a] = append(p.byAgent[a], i)
	}
	var out []golden.Task
	for i := range tasks {
		t := &tasks[i]
		if len(t.History) > 0 || strings.HasSuffix(t.ID, DialogueSuffix) {
			continue
		}
		p := pools[poolKey(t)]
		if p == nil {
			continue
		}
		h := hash(t.ID + DialogueSuffix)
		kind := h % 4
		if kind > 1 {
			continue
		}
		pick := int(h / 4)
		d := *t
		d.ID = t.ID + DialogueSuffix
		switch {
		case kind == 0 && t.Expected != "":
			a := agentOf(t.Expected)
			u := pickOther(tasks, p.byAgent[a], pick, func(u *golden.Task) bool { return !t.Correct(u.Expected) })
			if u == nil {
				continue
			}
			d.History = []string{u.Text}
			d.Text = half(t.Text, h&(1<<20) != 0)
		default:
			a := agentOf(t.Expected)
			u := pickOther(tasks, p.all, pick, func(u *golden.Task) bool {
				return t.Expected == "" || agentOf(u.Expected) != a
			})
			if u == nil {
				continue
			}
			d.History = []string{u.Text}
		}
		out = append(out, d)
	}
	return out
}

// pickOther returns the first task of idx, from position start on and
// wrapping around, that ok accepts; nil when none does.
func pickOther(tasks []golden.Task, idx []int, start int, ok func(*golden.Task) bool) *golden.Task {
	for j := range idx {
		u := &tasks[idx[(start+j)%len(idx)]]
		if ok(u) {
			return u
		}
	}
	return nil
}

// half returns the first (or, with second, the last) half of the text's
// words; a text of four words or fewer is kept whole, and a half has at
// least two words.
func half(text string, second bool) string {
	w := strings.Fields(text)
	if len(w) <= 4 {
		return text
	}
	n := max((len(w)+1)/2, 2)
	if second {
		return strings.Join(w[len(w)-n:], " ")
	}
	return strings.Join(w[:n], " ")
}

// agentOf is the agent part of a skill key "<agent>/<skillId>".
func agentOf(key string) string {
	a, _, _ := strings.Cut(key, "/")
	return a
}

// sourceID is the id of the training task a (possibly dialogue) task was
// made from.
func sourceID(id string) string { return strings.TrimSuffix(id, DialogueSuffix) }
