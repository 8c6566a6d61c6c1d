module github.com/skillmatch/skillmatch/services/reranker

go 1.26.8
