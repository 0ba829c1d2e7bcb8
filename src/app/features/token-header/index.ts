export { TokenHeader, tokenIdentity, type TokenHeaderProps } from './components/token-header';
