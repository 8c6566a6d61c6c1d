module github.com/skillmatch/skillmatch/services/decider

go 1.26.8
