package learn

// AcrossRanksWhy says why a setting of a training run does not work
// across ranks (each rank holding its block of the rows), by the
// setting's name: the validation split, the pictures, the learning curve
// and the bound.
var AcrossRanksWhy = map[string]string{
	"val-frac": "the validation split is drawn from every example, which no rank holds",
	"plot":     "the plots draw every training example, which no rank holds",
	"curve":    "the learning curve is not reduced across ranks",
	"bound":    "the bounds are evaluated on every training example, which no rank holds",
}

// RefuseAcrossRanks refuses, in a job of ranks ranks, the first of
// settings (names of AcrossRanksWhy) that given names as set explicitly:
// a SettingError about it, saying why.
func RefuseAcrossRanks(given map[string]bool, ranks int, settings ...string) error {
	for _, n := range settings {
		if given[n] {
			return settingErr(n, "{"+n+"} does not work across ranks (this job has %d): %s; run it in one process, without mpirun or srun", ranks, AcrossRanksWhy[n])
		}
	}
	return nil
}
