export { PairPools } from './components/pair-pools';
