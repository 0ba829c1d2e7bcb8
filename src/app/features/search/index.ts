export { PairSearch } from './components/pair-search';
