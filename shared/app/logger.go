package app

import (
	"fmt"
	"io"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// LogFormat is how log lines are written.
type LogFormat int

const (
	// LogConsole is for a person at a terminal (`skillmatch run`).
	LogConsole LogFormat = iota
	// LogJSON is one JSON object a line, for a log pipeline (services).
	LogJSON
)

// NewLogger writes lines at level and above to w.
func NewLogger(level string, w io.Writer, format LogFormat) (*zap.Logger, error) {
	lvl, err := zapcore.ParseLevel(level)
	if err != nil {
		return nil, fmt.Errorf("%w: --log-level %q: want debug, info, warn or error", ErrUsage, level)
	}
	var enc zapcore.Encoder
	switch format {
	case LogJSON:
		c := zap.NewProductionEncoderConfig()
		c.EncodeTime = zapcore.ISO8601TimeEncoder
		enc = zapcore.NewJSONEncoder(c)
	default:
		c := zap.NewDevelopmentEncoderConfig()
		c.EncodeTime = zapcore.ISO8601TimeEncoder
		enc = zapcore.NewConsoleEncoder(c)
	}
	return zap.New(zapcore.NewCore(enc, zapcore.AddSync(w), lvl)), nil
}
