package task

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

var (
	// ErrInvalidTask is wrapped by every error Parse returns.
	ErrInvalidTask = errors.New("invalid task")
	// ErrTooLarge marks a task that breaks a size limit. It wraps
	// ErrInvalidTask, so callers that only care about "bad input" need one
	// check, and callers that answer 413 rather than 400 can tell.
	ErrTooLarge = fmt.Errorf("%w: too large", ErrInvalidTask)
)

// Error says which field of which task is wrong and why. Reason is never
// empty; TaskID is empty when the id itself could not be read.
type Error struct {
	TaskID string
	// Field is a path such as "message.parts[2]" or "caller.scopes[0]";
	// empty when the whole payload is at fault.
	Field  string
	Reason string
	// Err is ErrInvalidTask or ErrTooLarge.
	Err error
}

// Error reads like `task "t-1": message.parts[2]: file part needs a
// mediaType or a name`.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("task")
	if e.TaskID != "" {
		b.WriteByte(' ')
		b.WriteString(strconv.Quote(e.TaskID))
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Reason)
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// quote quotes an untrusted value for an error message, cut short so that a
// hostile payload cannot make the message itself huge.
func quote(s string) string {
	const max = 40
	if utf8.RuneCountInString(s) > max {
		r := []rune(s)
		return strconv.Quote(string(r[:max])) + "…"
	}
	return strconv.Quote(s)
}

// jsonReason turns an encoding/json error into a field path and a sentence.
// want names what the value at the top should have been.
func jsonReason(err error, want string) (field, reason string) {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return "", fmt.Sprintf("invalid JSON at byte %d: %s", syn.Offset, strings.TrimPrefix(syn.Error(), "json: "))
	case errors.As(err, &typ):
		if typ.Field == "" {
			return "", fmt.Sprintf("want %s, got %s", want, typ.Value)
		}
		return typ.Field, fmt.Sprintf("want %s, got %s", goTypeName(typ.Type.String()), typ.Value)
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Field, e.Reason
	}
	return "", "invalid JSON: " + err.Error()
}

// goTypeName says a Go type the way a JSON author thinks of it.
func goTypeName(t string) string {
	switch {
	case t == "string":
		return "a string"
	case strings.HasPrefix(t, "[]"):
		return "an array"
	case t == "bool", t == "*bool":
		return "true or false"
	}
	return "an object"
}
