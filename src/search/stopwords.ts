/** Common English words that carry no topic; left out when building a query from a note's own text. */
export const STOPWORDS = new Set(
  `a about above after again against all also am an and any are as at be because been before being below between both but by
can could did do does doing down during each even few for from further had has have having he her here hers herself him
himself his how however i if in into is it its itself just like may me might more most much must my myself no nor not now
of off on once only or other our ours ourselves out over own same she should since so some still such than that the their
theirs them themselves then there these they this those through to too under until up upon us very was we were what when
where which while who whom why will with within without would yet you your yours yourself yourselves one two also via per
use used using make made get got new will shall etc`.split(/\s+/),
);

/** Lucene's classic English stop set: words dropped from any-of queries (see query.ts). */
export const QUERY_STOPWORDS = new Set(
  "a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with".split(" "),
);
