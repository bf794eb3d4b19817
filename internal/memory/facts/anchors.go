package facts

// Recall by meaning needs a floor that holds for any embedding model, and
// models differ in where unrelated text lands: one puts two unrelated
// sentences at a cosine of 0.1, another at 0.7. So the floor is relative.
// With the query, recall embeds anchor sentences about nothing a memory
// would hold, in several languages, and takes the query's highest cosine
// with any of them as what "unrelated" means for this query and this
// model. A fact is recalled by meaning when its cosine beats that by
// MinMargin: closer to the message than any of two dozen sentences about
// nothing in particular, by a clear step.
//
// The anchors are embedded once per process, in the same request as the
// first query.

// anchorTexts returns the anchor sentences. They are written for no
// domain a user's facts are likely to be about (no software, schedules,
// people at work), since an anchor near a true fact would hide it.
func anchorTexts() []string {
	return []string{
		"The weather is nice today.",
		"I like to read books in the evening.",
		"How long should rice be boiled?",
		"The train leaves at nine in the morning.",
		"Tell me a joke about cats.",
		"What is the tallest mountain in Europe?",
		"Please translate this sentence into French.",
		"The cat is sleeping on the sofa.",
		"我今天很忙，晚上再说。",
		"这本小说的结局很感人。",
		"Das Wetter ist heute schön.",
		"Explain how a rainbow forms.",
		"Write a short poem about the sea.",
		"What time is it in Tokyo?",
		"Thank you very much for your help!",
		"Let's meet for coffee tomorrow.",
		"My favourite colour is green.",
		"How many legs does a spider have?",
		"The museum opens at ten on Sundays.",
		"Can you recommend a good movie?",
		"今日は天気がいいですね。",
		"¿Dónde está la biblioteca?",
		"He plays the guitar in a small band.",
		"Summarize the plot of Hamlet.",
	}
}

// background is the highest cosine of the normalized query q with any
// anchor: what an unrelated text scores for q.
func background(q []float32, anchors [][]float32) float64 {
	top := -1.0
	for _, a := range anchors {
		top = max(top, cosineUnit(q, a))
	}
	return top
}

// cosineUnit is the dot product of two normalized vectors of the same
// length, or zero.
func cosineUnit(a, b []float32) float64 {
	if len(a) != len(b) {
		return 0
	}
	var dot float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
	}
	return dot
}
