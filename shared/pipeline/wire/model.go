package wire

// BucketModel is the JetStream KV bucket of the model state the feedback
// stage learns and the decider hot-reloads.
const BucketModel = "skillmatch_model"

// Keys of the model bucket.
const (
	// ModelKeyPosteriors holds the JSON of a feedback.Snapshot: per-skill
	// Beta posteriors of the success rate, with mean latency and cost.
	ModelKeyPosteriors = "posteriors"
	// ModelKeyCalibration holds the JSON of a calibrate.Model: the
	// calibration the feedback stage refitted, published only when it is
	// no worse on a held-out slice. The reranker hot-reloads it
	// (pipeline.Stages.WatchModel); deleting the key restores the model's
	// own calibration.
	ModelKeyCalibration = "calibration"
	// ModelKeyEvaluation holds the catalog refresher's last evaluation
	// (refresh.EvalRecord), so that a new process (a new embedder,
	// say) compares its first evaluation with the old one's last.
	ModelKeyEvaluation = "evaluation"
)
