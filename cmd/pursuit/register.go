package main

// registerAlgorithms fills in the train and load functions of the
// algorithms whose packages are part of this build.
func registerAlgorithms(all []*algorithm) {
	for _, a := range all {
		switch a.name {
		case "svm":
			a.train, a.load = trainSVM, loadSVM
		case "slmc":
			a.train, a.load = trainSLMC, loadSLMC
		}
	}
}
