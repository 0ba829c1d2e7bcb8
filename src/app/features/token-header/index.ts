export { TokenHeader, TokenHeaderPlaceholder } from './components/token-header';
