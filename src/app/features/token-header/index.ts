export { TokenHeader, TokenHeaderPlaceholder, tokenIdentity, type TokenHeaderProps } from './components/token-header';
