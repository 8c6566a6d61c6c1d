package app

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/micro"
	"go.uber.org/zap"

	"github.com/skillmatch/skillmatch/shared/a2a/task"
	"github.com/skillmatch/skillmatch/shared/frontdoor/a2aserver"
	"github.com/skillmatch/skillmatch/shared/pipeline/client"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

// SubjectMatch is the request-reply front door: a request on it (or on
// SubjectMatch.<caller>, whose permissions say who may ask as that
// caller) carrying a task gets the task's decision as the reply, or its
// dead letter as a service error.
const SubjectMatch = wire.Prefix + ".match"

// maxMatchesInFlight bounds the requests the front door waits on at once.
const maxMatchesInFlight = 256

// ServeMatch serves SubjectMatch as the NATS micro service "skillmatch"
// (found by `nats micro ls`), submitting each task through sub as the
// caller of the request's subject and answering with its decision. One
// client serves every request, so that a group-committing one
// (client.WithGroupCommit) shares the fsync of submissions that arrive
// together. It stops when ctx ends.
func ServeMatch(ctx context.Context, nc *nats.Conn, sub *client.Client, timeout time.Duration, obs a2aserver.Observer, log *zap.Logger) (micro.Service, error) {
	svc, err := micro.AddService(nc, micro.Config{Name: "skillmatch", Version: semver(Version()),
		Description: "matches a task to an A2A agent skill and replies with the decision"})
	if err != nil {
		return nil, fmt.Errorf("app: front door: %w", err)
	}
	// The micro handler runs on the subscription: each request is
	// answered on its own goroutine so that one decision does not wait
	// for another, up to maxMatchesInFlight at once; past that a request
	// is refused with a busy error rather than queued without bound.
	inFlight := make(chan struct{}, maxMatchesInFlight)
	h := micro.HandlerFunc(func(r micro.Request) {
		select {
		case inFlight <- struct{}{}:
			go func() {
				defer func() { <-inFlight }()
				start := time.Now()
				result := answerMatch(ctx, sub, r, timeout, log)
				if obs != nil {
					obs.FrontDoorAnswered("nats", result, time.Since(start))
				}
			}()
		default:
			if obs != nil {
				obs.FrontDoorAnswered("nats", "busy", 0)
			}
			_ = r.Error("503", fmt.Sprintf("front door busy: %d requests are waiting for their decisions; retry", maxMatchesInFlight), nil)
		}
	})
	for name, subject := range map[string]string{"match": SubjectMatch, "match-as": SubjectMatch + ".*"} {
		if err := svc.AddEndpoint(name, h, micro.WithEndpointSubject(subject)); err != nil {
			_ = svc.Stop()
			return nil, fmt.Errorf("app: front door: %w", err)
		}
	}
	// The server knows the endpoints before anyone is told they exist.
	if err := nc.Flush(); err != nil {
		_ = svc.Stop()
		return nil, fmt.Errorf("app: front door: %w", err)
	}
	go func() {
		<-ctx.Done()
		_ = svc.Stop()
	}()
	return svc, nil
}

// answerMatch submits the request's task, replies with its decision and
// returns how the request ended (a2aserver.Observer's results).
func answerMatch(ctx context.Context, sub *client.Client, r micro.Request, timeout time.Duration, log *zap.Logger) string {
	caller, err := wire.CallerOf(SubjectMatch, r.Subject())
	if err != nil {
		_ = r.Error("400", err.Error(), nil)
		return "invalid"
	}
	t, err := matchTask(r.Data())
	if err != nil {
		_ = r.Error("400", err.Error(), nil)
		return "invalid"
	}
	// The caller is the subject's: the payload's caller id is a claim.
	t.Caller.ID = caller
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	a, err := sub.Submit(ctx, t)
	switch {
	case err != nil:
		log.Warn("front door: no decision", zap.String("task_id", t.ID), zap.Error(err))
		_ = r.Error("504", err.Error(), nil)
		return "no_decision"
	case a.DeadLetter != nil:
		_ = r.Error("400", fmt.Sprintf("task %s rejected by the %s: %s", t.ID, a.DeadLetter.Stage, a.DeadLetter.Reason), a.DeadLetter.Raw)
		return "rejected"
	default:
		_ = r.Respond(a.Decision.Raw) // the decider's message as it is
		return a.Decision.Action
	}
}

// errMatchTask marks a request the front door cannot read.
var errMatchTask = errors.New("front door: bad task")

// matchTask reads a request: a task (the JSON `skillmatch submit` sends)
// or a TaskSubmitted envelope, checked as the extractor checks it.
func matchTask(data []byte) (*task.Task, error) {
	sub, err := wire.DecodeTaskSubmitted(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errMatchTask, err)
	}
	t, err := task.Parse(sub.Task)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errMatchTask, err)
	}
	return t, nil
}

// semverRe is the SemVer form micro wants for a service's version.
var semverRe = regexp.MustCompile(`^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)

// semver is v as SemVer ("v1.2.3" → "1.2.3"); a development build
// ("devel", a VCS revision) is 0.0.0-dev.
func semver(v string) string {
	if s := strings.TrimPrefix(v, "v"); semverRe.MatchString(s) {
		return s
	}
	return "0.0.0-dev"
}
