package match_test

import "testing"

// carsAndFilms is an invented description-only catalog in which the car
// services' cards say "rental" and a movie service's skill is named
// "Rent Movie".
func carsAndFilms() []agentSpec {
	return []agentSpec{
		{ID: "reelhouse", Name: "Reelhouse", Desc: "The widest selection of movies to stream",
			Skills: []skillSpec{
				{ID: "find-movies", Name: "Find Movies", Desc: "Find movies by genre or director to watch", Tags: []string{"genre", "find"}},
				{ID: "rent-movie", Name: "Rent Movie", Desc: "Rent a movie to stream, subtitles if wanted", Tags: []string{"movie name", "rent"}}}},
		{ID: "wheelsup", Name: "WheelsUp", Desc: "Car rental service with coverage of many cities",
			Skills: []skillSpec{
				{ID: "cars-available", Name: "Find Available Cars", Desc: "List rental cars free in a city on a date", Tags: []string{"pickup city", "pickup date"}}}},
		{ID: "autohire", Name: "AutoHire", Desc: "Rental cars in cities around the globe",
			Skills: []skillSpec{
				{ID: "cars-available", Name: "Find Available Cars", Desc: "Show which cars are free for rental in a city on a date", Tags: []string{"pickup city", "pickup date"}}}},
	}
}

// A request that says "rent" where the car services' cards say "rental"
// finds a car service through the built-in model; requests that name the
// movie rental still find it. Without the word forms, the first two
// cases went to "Rent Movie" (checked when the rule was written).
func TestWordFormsMeetTheCard(t *testing.T) {
	m := newMatcher(t, buildCatalog(t, carsAndFilms()...))
	tests := []struct {
		text string
		want []string
	}{
		{"We want to rent a car", []string{"wheelsup/cars-available", "autohire/cars-available"}},
		{"Hi there, could I rent a car?", []string{"wheelsup/cars-available", "autohire/cars-available"}},
		{"I want to rent a movie with subtitles", []string{"reelhouse/rent-movie"}},
		{"A rental car in Tucson, please.", []string{"wheelsup/cars-available", "autohire/cars-available"}},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			res := mustMatch(t, m, textTask("f", tt.text))
			if len(res.Ranked) == 0 {
				t.Fatal("nothing ranked")
			}
			got := res.Ranked[0].Entry.Key
			for _, w := range tt.want {
				if got == w {
					return
				}
			}
			t.Errorf("best %s (p %.2f), want one of %v", got, res.Ranked[0].Prob, tt.want)
		})
	}
}
