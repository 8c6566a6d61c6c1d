module github.com/skillmatch/skillmatch/services/feedback

go 1.26.8
