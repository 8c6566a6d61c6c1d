module github.com/skillmatch/skillmatch/cmd/skillmatch

go 1.26.8
