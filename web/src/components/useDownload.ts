import { useState } from 'react';
import { errorMessage } from '../api/errors.js';

/** A download a button starts: whether it is under way, and why the last one failed, in words. */
export function useDownload(download: () => Promise<void>) {
  const [state, setState] = useState<{ busy: boolean; problem: string | null }>({ busy: false, problem: null });
  const start = async () => {
    setState({ busy: true, problem: null });
    try {
      await download();
      setState({ busy: false, problem: null });
    } catch (error) {
      setState({ busy: false, problem: errorMessage(error) });
    }
  };
  return { ...state, start };
}
