import { createContext, useContext } from 'react';

/** Opens the ⌘K palette, for pages that offer it (the not-found page) as well as the keyboard. */
export const OpenPaletteContext = createContext<() => void>(() => {});

export const useOpenPalette = () => useContext(OpenPaletteContext);
