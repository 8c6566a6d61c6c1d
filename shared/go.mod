module github.com/skillmatch/skillmatch/shared

go 1.26.8

require github.com/kljensen/snowball v0.10.0 // indirect
