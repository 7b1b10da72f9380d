SELECT total FROM ref('totls')
