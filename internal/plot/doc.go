// Package plot draws the pictures the pursuit command writes, as PNG files
// through gonum.org/v1/plot: learning curves (error against the number of
// basis functions) and, for two-dimensional data, decision surfaces with the
// training points and the chosen basis points circled, as in Figure 6 of
// Vincent & Bengio's Kernel Matching Pursuit paper. Legends are drawn in a
// strip to the right of the plot, never over the data, with the colour
// scale of a surface (a colour bar of the decision value, or a swatch per
// class region). Axes are labelled at round numbers and at their start; an
// x axis of whole numbers (steps, basis functions) gets integer ticks, and a
// learning curve's y axis runs from 0 to a little above its largest value.
//
// The functions take plain slices, so they know nothing of the learners;
// the command evaluates the models and hands the numbers over.
package plot
