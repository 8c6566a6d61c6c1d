package console

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
)

// AuthFile is the console's auth file: the operators who may look, each
// with a bearer token (for scripts) and/or a user and password (HTTP
// basic auth, what a browser asks for). A value written "$NAME" is read
// from the environment variable NAME, as deploy/nats/accounts.conf reads
// its passwords, so the file itself holds no secret:
//
//	{"operators": [{"id": "admin", "user": "admin", "password": "$SKILLMATCH_ADMIN_PASSWORD"},
//	               {"id": "oncall", "token": "$SKILLMATCH_CONSOLE_TOKEN"}]}
type AuthFile struct {
	Operators []Operator `json:"operators"`
}

// Operator is one identity allowed to use the console.
type Operator struct {
	ID       string `json:"id"`
	Token    string `json:"token,omitempty"`
	User     string `json:"user,omitempty"`
	Password string `json:"password,omitempty"`
}

// Auth checks requests against the operators of an auth file. A nil
// *Auth lets every request through as the operator "anonymous".
type Auth struct {
	tokens map[[32]byte]string
	users  map[string]userCred
}

type userCred struct {
	id   string
	hash [32]byte
}

// ErrAuth marks an auth file the console cannot use.
var ErrAuth = errors.New("console: auth file")

// LoadAuth reads an auth file.
func LoadAuth(path string) (*Auth, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrAuth, err)
	}
	var f AuthFile
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%w %s: %w", ErrAuth, path, err)
	}
	a, err := NewAuth(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return a, nil
}

// NewAuth checks the operators (each with an id and a token or a user and
// password, every secret non-empty once read from the environment) and
// returns their Auth.
func NewAuth(f AuthFile) (*Auth, error) {
	if len(f.Operators) == 0 {
		return nil, fmt.Errorf("%w: no operators", ErrAuth)
	}
	a := &Auth{tokens: map[[32]byte]string{}, users: map[string]userCred{}}
	for i, op := range f.Operators {
		if op.ID == "" {
			return nil, fmt.Errorf("%w: operator %d has no id", ErrAuth, i)
		}
		token, err := secret(op.Token)
		if err != nil {
			return nil, fmt.Errorf("%w: operator %q: token: %w", ErrAuth, op.ID, err)
		}
		pass, err := secret(op.Password)
		if err != nil {
			return nil, fmt.Errorf("%w: operator %q: password: %w", ErrAuth, op.ID, err)
		}
		if token == "" && (op.User == "" || pass == "") {
			return nil, fmt.Errorf("%w: operator %q needs a token or a user and a password", ErrAuth, op.ID)
		}
		if token != "" {
			a.tokens[sha256.Sum256([]byte(token))] = op.ID
		}
		if op.User != "" {
			if pass == "" {
				return nil, fmt.Errorf("%w: operator %q: user %q has no password", ErrAuth, op.ID, op.User)
			}
			if _, dup := a.users[op.User]; dup {
				return nil, fmt.Errorf("%w: user %q listed twice", ErrAuth, op.User)
			}
			a.users[op.User] = userCred{id: op.ID, hash: sha256.Sum256([]byte(pass))}
		}
	}
	return a, nil
}

// secret reads "$NAME" from the environment; an unset variable is an
// error rather than an empty secret anyone could send.
func secret(v string) (string, error) {
	name, ok := strings.CutPrefix(v, "$")
	if !ok {
		return v, nil
	}
	s, set := os.LookupEnv(name)
	if !set || s == "" {
		return "", fmt.Errorf("environment variable %s is not set", name)
	}
	return s, nil
}

// Check returns the operator a request authenticates as: a bearer token
// or basic-auth user and password of the file. Secrets are compared as
// SHA-256 digests in constant time.
func (a *Auth) Check(r *http.Request) (string, bool) {
	if a == nil {
		return "anonymous", true
	}
	if tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		sum := sha256.Sum256([]byte(strings.TrimSpace(tok)))
		found := ""
		for h, id := range a.tokens {
			if subtle.ConstantTimeCompare(h[:], sum[:]) == 1 {
				found = id
			}
		}
		return found, found != ""
	}
	user, pass, ok := r.BasicAuth()
	if !ok {
		return "", false
	}
	c, known := a.users[user]
	sum := sha256.Sum256([]byte(pass))
	if !known || subtle.ConstantTimeCompare(c.hash[:], sum[:]) != 1 {
		return "", false
	}
	return c.id, true
}
