declare module 'virtual:platform-kit/customization' {}
