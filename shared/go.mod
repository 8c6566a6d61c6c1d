module github.com/skillmatch/skillmatch/shared

go 1.26.8

require github.com/a2aproject/a2a-go/v2 v2.3.1

require (
	github.com/google/uuid v1.6.0 // indirect
	github.com/kljensen/snowball v0.10.0 // indirect
	go.uber.org/multierr v1.10.0 // indirect
	go.uber.org/zap v1.28.0 // indirect
)
