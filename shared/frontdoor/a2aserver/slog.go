package a2aserver

import (
	"context"
	"log/slog"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// zapHandler writes the a2a-go SDK's slog records to the server's zap
// logger, one level down: the SDK's info lines (queues, fallbacks) are
// its internals, debug for us; its warnings and errors stay what they are
// but one lower, since every outcome of a request is also logged by the
// executor with its task id.
type zapHandler struct {
	log   *zap.Logger
	attrs []zap.Field
}

func newSlog(log *zap.Logger) *slog.Logger {
	return slog.New(&zapHandler{log: log.With(zap.String("component", "a2a-go"))})
}

func level(l slog.Level) zapcore.Level {
	switch {
	case l >= slog.LevelError:
		return zapcore.WarnLevel
	case l >= slog.LevelWarn:
		return zapcore.InfoLevel
	default:
		return zapcore.DebugLevel
	}
}

func (h *zapHandler) Enabled(_ context.Context, l slog.Level) bool {
	return h.log.Core().Enabled(level(l))
}

func (h *zapHandler) Handle(_ context.Context, r slog.Record) error {
	fields := append([]zap.Field(nil), h.attrs...)
	r.Attrs(func(a slog.Attr) bool {
		fields = append(fields, zap.Any(a.Key, a.Value.Resolve().Any()))
		return true
	})
	if ce := h.log.Check(level(r.Level), r.Message); ce != nil {
		ce.Write(fields...)
	}
	return nil
}

func (h *zapHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	n := &zapHandler{log: h.log, attrs: append([]zap.Field(nil), h.attrs...)}
	for _, a := range attrs {
		n.attrs = append(n.attrs, zap.Any(a.Key, a.Value.Resolve().Any()))
	}
	return n
}

func (h *zapHandler) WithGroup(name string) slog.Handler {
	return &zapHandler{log: h.log.Named(name), attrs: h.attrs}
}
