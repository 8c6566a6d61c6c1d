package extract

import (
	"strings"
	"testing"

	"github.com/skillmatch/skillmatch/shared/a2a/task"
)

func TestAsked(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"a declined job before the request", "Nah, I don't want to reserve anything yet. I need return flights to Oslo first.",
			"I need return flights to Oslo first."},
		{"declined with an aside after it", "Nah, I don't want to order it today, actually. Could you look up some podcasts?",
			"Could you look up some podcasts?"},
		{"declined in other words", "I do not wish to pay anything yet. Can you look for a coach that seats four?",
			"Can you look for a coach that seats four?"},
		{"curly apostrophe", "I’d rather not buy it yet. What is playing tonight?", "What is playing tonight?"},
		{"a declining that asks in the same sentence stays", "I don't want to book yet, just find me flights. I have two bags.",
			"I don't want to book yet, just find me flights. I have two bags."},
		{"a declined thing is part of the job", "I'd like to stream Paddington 2. I don't want any dubbing.",
			"I'd like to stream Paddington 2. I don't want any dubbing."},
		{"a declined state is part of the job", "Book me a room near the venue. I don't want to be exhausted on the road.",
			"Book me a room near the venue. I don't want to be exhausted on the road."},
		{"a bare no names no job", "Not right now. What's the balance on my savings?", "Not right now. What's the balance on my savings?"},
		{"every sentence declines", "I don't want to pay. I don't want to wait.", "I don't want to pay. I don't want to wait."},
		{"one sentence", "I don't want to transfer money", "I don't want to transfer money"},
		{"declined in the middle", "Find me a hotel. I don't want to rent a car. Book a table too.", "Find me a hotel. Book a table too."},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Asked(tt.in); got != tt.want {
				t.Errorf("Asked(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// The requirement's need is what the task asks: a sentence that only
// turns a job down is not matched.
func TestFromTaskLeavesOutDeclinedJobs(t *testing.T) {
	tk := &task.Task{ID: "t1", Message: task.Message{Role: "user", Parts: []task.Part{{
		Text: "Nah, I do not want to place a booking yet. I would rather search for return fares to Madrid."}}}}
	if got, want := FromTask(tk).Need, "I would rather search for return fares to Madrid."; got != want {
		t.Errorf("Need = %q, want %q", got, want)
	}
}

// A first message's replies to an offer answer nothing and are left
// out; thanks and sentences that go on to ask stay.
func TestAskedFirst(t *testing.T) {
	tests := []struct{ in, want string }{
		{"That sounds nice, but I've changed my mind. Change 250 pounds into yen", "Change 250 pounds into yen"},
		{"Not right now. What's the balance on my savings?", "What's the balance on my savings?"},
		{"Nope, I don't want to reserve yet. Find a flight.", "Find a flight."},
		{"Could you look up a hotel room for me? Thanks!", "Could you look up a hotel room for me? Thanks!"},
		{"Sounds good, book it for tonight. Then call a cab.", "Sounds good, book it for tonight. Then call a cab."},
		{"Sounds good. Maybe later.", "Sounds good. Maybe later."},
		{"Sounds good.", "Sounds good."},
	}
	for _, tt := range tests {
		if got := AskedFirst(tt.in); got != tt.want {
			t.Errorf("AskedFirst(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// In a conversation, a reply to the offer before stays in the need: it
// tells the reader the offer was turned down.
func TestFromTaskKeepsRepliesInAConversation(t *testing.T) {
	const text = "Not right now. What's the balance on my savings?"
	first := &task.Task{ID: "t1", Message: task.Message{Role: "user", Parts: []task.Part{{Text: text}}}}
	if got, want := FromTask(first).Need, "What's the balance on my savings?"; got != want {
		t.Errorf("first message: Need = %q, want %q", got, want)
	}
	later := *first
	later.History = []task.Message{{Role: "user", Parts: []task.Part{{Text: "Find me a bus to Denver on Friday."}}}}
	if got := FromTask(&later).Need; got != text {
		t.Errorf("follow-up: Need = %q, want %q", got, text)
	}
	offered := *first
	offered.History = []task.Message{{Role: "agent", Parts: []task.Part{{Text: "Shall I check your savings account too?"}}}}
	if got := FromTask(&offered).Need; got != text {
		t.Errorf("reply to an agent's offer: Need = %q, want %q", got, text)
	}
}

// Asked reads untrusted text: it never panics and returns the text or
// some of its sentences, in order.
func FuzzAsked(f *testing.F) {
	for _, s := range []string{"Nope, I don't want to reserve yet. Find a flight.", "I'd rather not. ", ". . .", "i don't want to\xff. x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for name, asked := range map[string]func(string) string{"Asked": Asked, "AskedFirst": AskedFirst} {
			got := asked(s)
			if got == s {
				continue
			}
			rest := s
			for _, sentence := range splitSentences(got) {
				i := strings.Index(rest, sentence)
				if i < 0 {
					t.Fatalf("%s(%q) = %q: %q is not a later sentence of the text", name, s, got, sentence)
				}
				rest = rest[i+len(sentence):]
			}
		}
	})
}

// A sentence that asks for nothing is no part of a plan: it turns
// something down, answers what was offered, or states a detail, clause by
// clause. One that goes on to ask is kept.
func TestAsksNothing(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"That sounds like a lovely place to stay.", true},
		{"Yeah, that sounds awesome.", true},
		{"Sounds good to me.", true},
		{"Wow, sounds perfect.", true},
		{"Thank you very much.", true},
		{"You've been very helpful.", true},
		{"Okay, that works, thanks.", true},
		{"Sounds good, book it for tonight.", false},
		{"Sounds fine, but I've changed my mind.", true},
		{"Play something that sounds like jazz.", false},
		{"Great.", false},
		{"", false},
		{"I have 3 suitcases to check.", true},
		{"We have zero suitcases that need checking.", true},
		{"I've got a weekend away coming up.", true},
		{"Okay, we have two kids with us.", true},
		{"I have to renew my passport.", false},
		{"I've got to cancel the booking.", false},
		{"I have got to leave early.", false},
		{"I have got two bags.", true},
		{"I have two bags, please book the flight.", false},
		{"I need a single ticket to Rome.", false},
		{"I need 2 rooms.", true},
		{"I'll need four business class seats.", true},
		{"We will need 4 seats, thanks.", true},
		{"I need bus tickets.", false},
		{"Card WL 2900 3318 0456.", true},
		{"Sounds good, yes.", false}, // a clause of interjections alone: no words left to read
		{"Ref 44821", true},
		{"Track parcel 1Z999AA0123 for me", false},
		{"Pay invoice 4471 today", false},
		{"the aircraft has gone tech and they'll fly at 08:00", false},
		{"they'll fly at 08:00", true},
		{"She will arrive on Monday.", true},
		{"It'll be for 3 people.", true},
		{"They'll need a wheelchair at the gate.", false},
		{"He'll want a window seat.", false},
		{"They'll book it themselves.", false},
		{"They fly at 8.", false},
		{"Maybe at a later time.", true},
		{"Perhaps at a later date.", true},
		{"No, not right now.", true},
		{"No thanks.", true},
		{"Nope, I don't want to reserve it yet.", true},
		{"Not right now, but get me a coach to Fresno.", false},
		{"No, I want the earlier one.", false},
		{"Not the blue one, the red one.", false},
		{"Sounds good, but not right now.", true},
		{"No thanks, but find me a bus to Denver.", false},
		{"I'm going on a trip.", true},
		{"My sister and I are going on holiday", true},
		{"Me and my wife are visiting Sydney.", true},
		{"Hi I'm having friends over for a cookout.", true},
		{"I am tired of crowded trains.", true},
		{"We're flying to Boston on Friday.", true},
		{"I'm going to book a flight.", false},
		{"I'm planning to fly to Denver.", false},
		{"I'm looking for a restaurant.", false},
		{"I'm having trouble with my login.", false},
		{"I'm having an issue with the VPN.", false},
		{"I'm locked out of my account.", false},
		{"I'm moving house next month.", false},
		{"I'm visiting Perth, and I want to see some sights.", false},
		{"I'm hungry, find me a pizza place.", false},
		{"My card was declined.", false},
		{"We're visiting Rome and we need a hotel near the station.", false},
	}
	for _, tt := range tests {
		if got := AsksNothing(tt.in); got != tt.want {
			t.Errorf("AsksNothing(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
