module github.com/skillmatch/skillmatch/services/extractor

go 1.26.8
