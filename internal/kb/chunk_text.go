package kb

// ChunkText cuts plain text into chunks at paragraph breaks.
func ChunkText(text string, o ChunkOptions) []Chunk {
	return packAll([]section{{first: 1, lines: splitLines(text)}}, o)
}

// ChunkPages cuts a PDF's pages, pages[i] being page i+1's text: a chunk
// never spans two pages, and within a page it breaks at paragraphs; line
// numbers count from the top of the page.
func ChunkPages(pages []string, o ChunkOptions) []Chunk {
	secs := make([]section, 0, len(pages))
	for i, p := range pages {
		secs = append(secs, section{page: i + 1, first: 1, lines: splitLines(p)})
	}
	return packAll(secs, o)
}
