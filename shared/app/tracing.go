package app

import (
	"context"
	"fmt"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// tracerProvider exports the stages' spans to an OTLP/HTTP collector at
// endpoint (e.g. http://127.0.0.1:4318), named service; shutdown flushes
// what is pending. An empty endpoint is no tracing: nil, and a no-op.
func tracerProvider(ctx context.Context, endpoint, service string) (trace.TracerProvider, func(context.Context) error, error) {
	if endpoint == "" {
		return nil, func(context.Context) error { return nil }, nil
	}
	exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(endpoint))
	if err != nil {
		return nil, nil, fmt.Errorf("%w: --otlp-endpoint %q: %v", ErrUsage, endpoint, err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp),
		sdktrace.WithResource(resource.NewSchemaless(attribute.String("service.name", service))))
	return tp, tp.Shutdown, nil
}
