export { PairPools, type PairPoolsProps } from './components/pair-pools';
