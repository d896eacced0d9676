package main

import "github.com/pursuit-ml/pursuit/kmp"

// registerAlgorithms fills in the train and load functions of the
// algorithms whose packages are part of this build.
func registerAlgorithms(all []*algorithm) {
	for _, a := range all {
		switch a.name {
		case "kmp":
			a.train, a.trainOVR = kmpTrainer(kmp.PreFit, kmp.Squared, false)
			a.load = loadKMP
		case "kmp-backfit":
			a.train, a.trainOVR = kmpTrainer(kmp.BackFit, kmp.Squared, false)
			a.load = loadKMP
		case "kmp-basic":
			a.train, a.trainOVR = kmpTrainer(kmp.Basic, kmp.Squared, false)
			a.load = loadKMP
		case "kmp-tanh":
			a.train, a.trainOVR = kmpTrainer(kmp.BackFit, kmp.Tanh, false)
			a.load = loadKMP
		case "skmp":
			// Popovici et al.: a random active set searched per step, with
			// the fit --fit names (the variant given here is unused).
			a.train, a.trainOVR = kmpTrainer(kmp.Auto, kmp.Squared, true)
			a.load = loadKMP
		case "svm":
			a.train, a.trainOVR, a.load = trainSVM, trainSVMOneVsRest, loadSVM
		case "bpdn":
			a.train, a.load = trainBPDN, loadSVM
		case "mpkfda":
			a.train, a.trainOVR, a.load = trainMPKFDA, trainMPKFDAOneVsRest, loadMPKFDA
		case "slmc":
			a.train, a.trainOVR, a.load = trainSLMC, trainSLMCOneVsRest, loadSLMC
		}
	}
}
