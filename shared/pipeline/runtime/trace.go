package runtime

import (
	"context"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// propagator reads and writes the W3C trace context (traceparent,
// tracestate) in NATS headers.
var propagator = propagation.TraceContext{}

// Trace gives every delivery a span named after the stage, in the trace
// the message's traceparent names (a new one when it names none), and
// writes the span's trace context into every output's header, so that one
// task's stages make one trace. It goes outermost.
func Trace(stage string, tp trace.TracerProvider) Middleware {
	tracer := tp.Tracer("github.com/skillmatch/skillmatch/shared/pipeline/runtime")
	return func(next Handler) Handler {
		return func(ctx context.Context, in Msg) (Result, error) {
			ctx = propagator.Extract(ctx, HeaderCarrier(in.Header))
			ctx, span := tracer.Start(ctx, stage, trace.WithSpanKind(trace.SpanKindConsumer),
				trace.WithAttributes(attribute.String("messaging.destination.name", in.Subject)))
			defer span.End()
			res, err := next(ctx, in)
			if res.TaskID != "" {
				span.SetAttributes(attribute.String("skillmatch.task_id", res.TaskID))
			}
			switch {
			case err != nil:
				span.SetStatus(codes.Error, err.Error())
			case res.poison != "":
				span.SetStatus(codes.Error, res.poison)
			}
			for i := range res.Out {
				h := map[string][]string{}
				for k, v := range res.Out[i].Header {
					h[k] = v
				}
				propagator.Inject(ctx, HeaderCarrier(h))
				res.Out[i].Header = h
			}
			return res, err
		}
	}
}

// InjectTrace writes the trace context of ctx's span into h: for a
// message a handler publishes itself, which the Trace middleware does not
// see.
func InjectTrace(ctx context.Context, h map[string][]string) {
	propagator.Inject(ctx, HeaderCarrier(h))
}

// HeaderCarrier is a NATS header as an OpenTelemetry carrier. NATS keys
// are case-sensitive where HTTP's are not: a key is found as written, or
// else in any case, so a traceparent a client wrote either way is read.
type HeaderCarrier map[string][]string

// Get implements propagation.TextMapCarrier.
func (h HeaderCarrier) Get(key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	for k, v := range h {
		if strings.EqualFold(k, key) && len(v) > 0 {
			return v[0]
		}
	}
	return ""
}

// Set implements propagation.TextMapCarrier.
func (h HeaderCarrier) Set(key, value string) {
	if h != nil {
		h[key] = []string{value}
	}
}

// Keys implements propagation.TextMapCarrier.
func (h HeaderCarrier) Keys() []string {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	return keys
}
