package cache

// A result's review: the seed's ensemble learns only from prior runs that
// passed review (reference 001 §2), and a user who has looked at a result
// records it here. perfls never sets a review on its own.

import (
	"context"
	"fmt"
)

// The reviews a result can have; "" is none.
const (
	ReviewPassed     = "passed"
	ReviewRegression = "regression"
)

// ValidReview reports whether r is a review SetReview accepts.
func ValidReview(r string) bool {
	return r == "" || r == ReviewPassed || r == ReviewRegression
}

// SetReview records the review of stored result id ("" clears it). An
// unknown ID is an error that names it.
func (s *Store) SetReview(ctx context.Context, id int64, review string) error {
	if !ValidReview(review) {
		return fmt.Errorf("review %q: want %s, %s or none", review, ReviewPassed, ReviewRegression)
	}
	return s.run(ctx, func(db *conn) error {
		res, err := db.ExecContext(ctx, `UPDATE measurements SET review = ? WHERE id = ?`, review, id)
		if err != nil {
			return fmt.Errorf("record the review of result %d: %w", id, err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return fmt.Errorf("record the review of result %d: %w", id, err)
		} else if n == 0 {
			return fmt.Errorf("record the review of result %d: no result with that ID in the store", id)
		}
		return nil
	})
}
