// Only punctuation.
}}}
