enum _SoukServerPlaceholder {}
