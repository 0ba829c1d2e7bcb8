export { PairSearch, SEARCH_MEASURE, type PairSearchProps, type RecentPick } from './components/pair-search';
