module github.com/skillmatch/skillmatch/services/retriever

go 1.26.8
