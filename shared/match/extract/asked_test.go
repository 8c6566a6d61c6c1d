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
		{"a declined job before the request", "No, I don't want to reserve right now. I need to look for a round trip flight.",
			"I need to look for a round trip flight."},
		{"declined with an aside after it", "No, I don't want to rent it now, actually. Can I search for some songs?",
			"Can I search for some songs?"},
		{"declined in other words", "I do not wish to book right now. Could you find a bus for four people?",
			"Could you find a bus for four people?"},
		{"curly apostrophe", "I’d rather not buy it yet. What is playing tonight?", "What is playing tonight?"},
		{"a declining that asks in the same sentence stays", "I don't want to book yet, just find me flights. I have two bags.",
			"I don't want to book yet, just find me flights. I have two bags."},
		{"a declined thing is part of the job", "I'd like to rent Dogman. I don't want any subtitles.",
			"I'd like to rent Dogman. I don't want any subtitles."},
		{"a declined state is part of the job", "I need a hotel there. I don't want to be tired and driving.",
			"I need a hotel there. I don't want to be tired and driving."},
		{"a bare no names no job", "Not right now. How much do I have in my account?", "Not right now. How much do I have in my account?"},
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
		Text: "No, I do not want to make a reservation. I would like to find a round trip flight."}}}}
	if got, want := FromTask(tk).Need, "I would like to find a round trip flight."; got != want {
		t.Errorf("Need = %q, want %q", got, want)
	}
}

// A first message's replies to an offer answer nothing and are left
// out; thanks and sentences that go on to ask stay.
func TestAskedFirst(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Sounds good, but I changed my mind. Convert 100 dollars to euros", "Convert 100 dollars to euros"},
		{"Not right now. How much do I have in my account?", "How much do I have in my account?"},
		{"No, I don't want to reserve. Find a flight.", "Find a flight."},
		{"Could you help me search for a hotel room? Thanks!", "Could you help me search for a hotel room? Thanks!"},
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
	const text = "Not right now. How much do I have in my account?"
	first := &task.Task{ID: "t1", Message: task.Message{Role: "user", Parts: []task.Part{{Text: text}}}}
	if got, want := FromTask(first).Need, "How much do I have in my account?"; got != want {
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
	for _, s := range []string{"No, I don't want to reserve. Find a flight.", "I'd rather not. ", ". . .", "i don't want to\xff. x"} {
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
		{"That sounds like a nice hotel.", true},
		{"Yeah, that sounds awesome.", true},
		{"Sounds good to me.", true},
		{"Wow, sounds perfect.", true},
		{"Thank you very much.", true},
		{"You've been very helpful.", true},
		{"Okay, that works, thanks.", true},
		{"Sounds good, book it for tonight.", false},
		{"Sounds good, but I changed my mind.", true},
		{"Play something that sounds like jazz.", false},
		{"Great.", false},
		{"", false},
		{"I have 0 bags to check.", true},
		{"I have zero bags that need to be checked.", true},
		{"I've got a short trip coming up.", true},
		{"Okay, we have two kids with us.", true},
		{"I have to renew my passport.", false},
		{"I've got to cancel the booking.", false},
		{"I have got to leave early.", false},
		{"I have got two bags.", true},
		{"I have two bags, please book the flight.", false},
		{"I need a one way flight.", false},
		{"I need 2 rooms.", true},
		{"I'll need three economy class tickets.", true},
		{"We will need 4 seats, thanks.", true},
		{"I need bus tickets.", false},
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
		{"No, I don't want to reserve right now.", true},
		{"Not right now, but find me a bus to Denver.", false},
		{"No, I want the earlier one.", false},
		{"Not the blue one, the red one.", false},
		{"Sounds good, but not right now.", true},
		{"No thanks, but find me a bus to Denver.", false},
		{"I'm going on a trip.", true},
		{"My family and I are going on vacation", true},
		{"Me and my wife are visiting Sydney.", true},
		{"Hi I'm having guests over to BBQ.", true},
		{"I am tired of cabs and ubers.", true},
		{"We're flying to Boston on Friday.", true},
		{"I'm going to book a flight.", false},
		{"I'm planning to fly to Denver.", false},
		{"I'm looking for a restaurant.", false},
		{"I'm having trouble with my login.", false},
		{"I'm having an issue with the VPN.", false},
		{"I'm locked out of my account.", false},
		{"I'm moving house next month.", false},
		{"I'm visiting Sydney, and I want to find some attractions.", false},
		{"I'm hungry, find me a pizza place.", false},
		{"My card was declined.", false},
		{"I'm traveling soon and I need to search for a hotel.", false},
	}
	for _, tt := range tests {
		if got := AsksNothing(tt.in); got != tt.want {
			t.Errorf("AsksNothing(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
