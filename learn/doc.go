// Package learn is Pursuit's estimator contract: what every learner and
// every model of the module meets, and the code written once against it.
//
//   - Model: decisions (one value per row; Multi models one per output),
//     its Kind, its Basis, and Save. Optional capabilities are small
//     interfaces found by type assertion: Multi, Prefixer (predict as if
//     training had stopped early: learning curves), Describer, Curver,
//     Expander (the vectors and coefficients of one kernel expansion),
//     Methoder and Stopper.
//   - Learner: a plain configuration struct per algorithm (KMP, SVM, SLMC,
//     BPDN, MPKFDA) whose Fit trains on the engine, the rows x, the targets
//     y and a validation set, and returns a Model. OneVsRestLearner is a
//     learner with its own multi-class training.
//   - Settings: the model settings of every algorithm by name (Algorithms,
//     FindAlgorithm) in one struct, checked by Validate (SettingError names
//     the setting; SettingAlgorithms and CheckApplies say which settings
//     apply to which algorithm) and mapped to the algorithm's learner by
//     Learner (with a Run: kernel, task, progress, checkpoint; RunFor).
//     FitSettings runs a whole training from the settings; ParseGrid
//     parses grids over them (SetNumber, GridSettings), and AtPoint sets a
//     CV grid point's values. DataSettings are the data's: format, label
//     column, task (LabelSpec; LabelSettingError restates a refusal of the
//     task), storage (LoadOptions), scaling and validation split (Prep).
//     Named names a SettingError's settings as a program does (its flags).
//     The settings of the other runs, checked with SettingErrors (by
//     Validate, or CVSettings.Grid): CVSettings (folds and grid lists:
//     Grid, Search, and CVReport with Retrain and WriteText),
//     CompressSettings (Fractions,
//     FractionPaths, CheckSource, Compress; CompressSource.LoadData),
//     SubspaceSettings (Prepare, PreparePairs, FitKPCA, FitKCCA;
//     CheckPairs), BoundSettings (BoundOf), EquivSettings (Run),
//     CheckpointSettings (Options) and ParseProgressMode.
//   - The registry: Load reads any registered kind (Register adds one), and
//     File is the model file (a header with the task, scaling and training
//     figures, and each model's own Save format as payloads): LoadModel,
//     ParseModel, Write and WriteFile; LIBSVM text models are read too
//     (binary and ε-SVR as SVMModel, multi-class as SVMOneVsOne), and
//     predict in float64 (Precision, DecisionsIn, Expansion64).
//   - The multi-class reduction: LabelPlan maps labels to the targets of
//     binary models and outputs back to labels (binary, one-vs-rest,
//     one-vs-one, regression), PlanLabels chooses it from the training
//     labels (across ranks too), and Train fits any learner for a plan.
//   - A training run: LoadWithin loads data within the engine's memory
//     budget (each rank its block of rows), CheckWithin checks a file so
//     without keeping its rows, and LoadTrainTest a training and a test
//     file (or checks the test file: CheckTest) with the task planned
//     (TrainTest); Prep is the one
//     preprocessing step (validation split and scaling, copies charged to
//     the budget, or in place); FitScale fits a scaling on one set and
//     applies it to others; FitEvaluate trains and measures the training,
//     validation and test errors (File.Evaluate, across ranks);
//     File.LearningCurve, File.PlotCurve and File.PlotSurface draw what it
//     learned.
//   - Model selection: CrossValidate, and CV.Grid for any grid of learners
//     (per-fold preprocessing, trainings spread over ranks, one training
//     shared by settings that differ in the basis size, learning curves);
//     GridSearch over any numeric setting.
//   - The demo: DemoAlgorithms, WriteDemoData (WriteDemoSet) and
//     DemoProblem.Run (one algorithm on one generated problem).
//   - After training: File.Bound (the sample-compression bounds of package
//     bound; ValidateBound, BoundAlgorithms), Compress (the trade-off table of compressing a C-SVC with
//     package slmc), SparseKPCA and SKCCABound (the subspace bounds).
//   - Reports, for a program's own output: ProgressWriter (a learner's
//     Progress callback drawn as a bar or as log lines), CVGrid and
//     CV.Search with CVPoint and WriteCVTable, Tradeoff.Report
//     (TradeoffReport), KPCACurve.Report (KPCAReport) and SparseKCCA
//     (KCCAReport), LabelPlan.Describe and ErrorText, File.ExportLIBSVM
//     and ExportONNX, MethodOf and StopSummary, Result (File.Result, Num;
//     WriteText with TrainText: a training run's summary, LabelColumnText,
//     FormatSize), Bound.String, DemoProblems with DemoReport
//     (DemoProblem.Settings and Row, DemoResult.Record, DemoFullData),
//     SystemReport (DescribeSystem, AlgorithmInfos, AlgorithmNames) and DataInfo (DescribeData: how a data
//     set is held).
//   - Running a model and its files: File.LoadData (data at the model's
//     width, sparse rows widened), File.PredictData (Prediction, with
//     WritePredictions, and Result, WriteText and ForeignWarning for its
//     report), File.ScaleData and File.CheckTrainingRows (a saved model's
//     data), File.WritePlots and NothingToPlot, File.Export (ExportFormats,
//     ExportFiles), LoadCompressSource (SourceError), RestateLimit
//     (a memory-limit error in a setting's terms) and Prep.Fit (a whole
//     training run: preprocessing, FitEvaluate and Fitted.Record).
//     File.PredictScaled scales the data File.LoadData read and predicts
//     them. TrainOutputs are a training run's steps after fitting
//     (Finish: the header's record, the test in a phase of its own after
//     the training rows are given back (TestLater, KeepTrainRows,
//     LoadTest), the learning curve, the model file and its exports, the
//     pictures, and the Result with the bound; CheckFiles);
//     RefuseAcrossRanks (AcrossRanksWhy) refuses the settings that do not
//     work across ranks. CheckOutputs (NamedFile) refuses an output that
//     is one of the inputs, and UserMessage (IsPackageName) makes an
//     error's text one line for a person.
//
// The data given to Fit are scaled already (Prep scales them);
// File.Header.Scaler records the scaling a model file applies before its
// models see the data.
package learn
